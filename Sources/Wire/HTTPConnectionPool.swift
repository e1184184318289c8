/// The connections of one ``HTTPClient``, per host and port, on the client's loop.
///
/// At most `maxPerHost` connections per host are open or opening; each carries one exchange
/// at a time. An exchange takes the most recently used idle connection that is still
/// reusable (an idle one the server closed is dropped and the next tried, or a new one
/// opened in its place); when there is none it gets a slot and its caller connects; when every
/// slot is taken it waits, first come first served, until its deadline. An exchange that must
/// have a fresh connection (a retry) never takes an idle one: it closes one to free a slot.
final class HTTPConnectionPool: Selectable, @unchecked Sendable {
  // @unchecked: created on the caller's thread; after that every property is touched only on
  // `loop`'s thread (callers reach the pool through `loop.execute`).
  struct Key: Hashable, Sendable, CustomStringConvertible {
    let host: String
    let port: Int
    /// Over TLS: an `https` and an `http` origin on one port never share a connection.
    let secure: Bool

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
  }

  /// What a test or a benchmark can see of the pool.
  struct Statistics: Sendable, Equatable {
    /// TCP connections handed to the pool since it was made.
    var connectionsOpened = 0
    /// Idle connections found closed (or unusable) when an exchange wanted one.
    var staleConnectionsDropped = 0
    /// Idle connections now.
    var idle = 0
  }

  /// What the pool did, as a test observes it (on the loop's thread).
  enum Event: Sendable, Equatable {
    case connectionOpened
    /// An idle connection closed: the server closed it, sent a stray byte, or it idled out.
    case idleConnectionClosed
    /// An idle connection was found unusable when an exchange wanted it, and dropped.
    case staleConnectionDropped
    /// A request was sent again on a fresh connection (reported by ``HTTPClient``).
    case retried
  }

  private final class Host {
    var idle: [HTTPClientConnection] = []
    /// Connections open or being opened (idle and busy included).
    var open = 0
    var waiting: [HTTPExchange] = []
  }

  let loop: EventLoop
  let maxPerHost: Int
  let idleTimeout: Int64
  let limits: HTTPResponseParser.Limits
  private var hosts: [Key: Host] = [:]
  private var tickerID: UInt64?
  private var isShutDown = false
  private var statistics = Statistics()
  let observer: (@Sendable (Event) -> Void)?

  init(
    loop: EventLoop, maxPerHost: Int, idleTimeout: Int64, limits: HTTPResponseParser.Limits,
    observer: (@Sendable (Event) -> Void)? = nil
  ) {
    self.loop = loop
    self.maxPerHost = max(1, maxPerHost)
    self.idleTimeout = idleTimeout
    self.limits = limits
    self.observer = observer
  }

  /// Starts `exchange` on an idle connection, tells its caller to connect, or queues it.
  func submit(_ exchange: HTTPExchange) {
    if exchange.isCancelled { return exchange.fail(.cancelled) }
    if isShutDown { return exchange.fail(.shutDown) }
    host(exchange.key).waiting.append(exchange)
    dispatch(exchange.key)
    updateTicker()
  }

  /// The connection the caller of `exchange` opened, in the slot reserved for it.
  func start(_ exchange: HTTPExchange, on tcp: TCPConnection) {
    let connection = HTTPClientConnection(
      connection: tcp, key: exchange.key, pool: self, limits: limits, idleTimeout: idleTimeout)
    statistics.connectionsOpened += 1
    observer?(.connectionOpened)
    if isShutDown {
      retire(connection)
      return exchange.fail(.shutDown)
    }
    if exchange.isCancelled {
      // Nobody waits for it any more, but the connection is new: keep it for the next one.
      exchange.fail(.cancelled)
      release(connection)
      return
    }
    connection.start(exchange)
  }

  /// The connect for a slot reserved by ``submit(_:)`` failed: the slot is free again.
  func connectFailed(_ key: Key) {
    guard let host = hosts[key] else { return }
    host.open -= 1
    dispatch(key)
  }

  /// `connection` finished an exchange and can carry another.
  func release(_ connection: HTTPClientConnection) {
    guard connection.isAttached else { return }
    if isShutDown { return retire(connection) }
    let host = host(connection.key)
    host.idle.append(connection)
    // Later, not now: a FIN that came with the response is then read (and the connection
    // dropped) before a waiting exchange is put on it.
    if !host.waiting.isEmpty {
      loop.execute { [self] in dispatch(connection.key) }
    }
  }

  /// `connection` closed: its slot is free.
  func closed(_ connection: HTTPClientConnection) {
    guard connection.isAttached else { return }
    if hosts[connection.key]?.idle.contains(where: { $0 === connection }) == true {
      observer?(.idleConnectionClosed)
    }
    detach(connection)
    dispatch(connection.key)
  }

  /// The caller of `exchange` gave up. An exchange not yet submitted, or whose caller is
  /// connecting, sees `isCancelled` at its next step.
  func cancel(_ exchange: HTTPExchange) {
    exchange.isCancelled = true
    guard !exchange.isFinished else { return }
    if let connection = exchange.connection {
      connection.cancel()
    } else if let host = hosts[exchange.key],
      let index = host.waiting.firstIndex(where: { $0 === exchange })
    {
      host.waiting.remove(at: index)
      exchange.fail(.cancelled)
      updateTicker()
    }
  }

  /// Fails the waiting exchanges, closes the idle connections; busy ones close when done.
  func shutdown() {
    isShutDown = true
    for host in hosts.values {
      let waiting = host.waiting
      host.waiting = []
      for exchange in waiting { exchange.fail(.shutDown) }
      for connection in host.idle { retire(connection) }
    }
    updateTicker()
  }

  func currentStatistics() -> Statistics {
    var current = statistics
    current.idle = hosts.values.reduce(0) { $0 + $1.idle.count }
    return current
  }

  // MARK: - Selectable (a ticker while exchanges wait)

  func handleEvents(_ events: UInt32) {}

  func tick(now: Int64) {
    for host in hosts.values where !host.waiting.isEmpty {
      let late = host.waiting.filter { now >= $0.deadline }
      guard !late.isEmpty else { continue }
      host.waiting.removeAll { now >= $0.deadline }
      for exchange in late { exchange.fail(.timedOut) }
    }
    updateTicker()
  }

  // MARK: - Matching exchanges and connections

  private func host(_ key: Key) -> Host {
    if let host = hosts[key] { return host }
    let host = Host()
    hosts[key] = host
    return host
  }

  private func dispatch(_ key: Key) {
    guard let host = hosts[key] else { return }
    while let exchange = host.waiting.first {
      if !exchange.needsFreshConnection, let connection = takeIdle(host) {
        host.waiting.removeFirst()
        connection.start(exchange)
      } else if host.open < maxPerHost {
        host.waiting.removeFirst()
        host.open += 1
        exchange.resume(.connect)
      } else if exchange.needsFreshConnection, let connection = host.idle.last {
        retire(connection)
      } else {
        break
      }
    }
    if host.open == 0 && host.waiting.isEmpty { hosts[key] = nil }
    updateTicker()
  }

  /// The most recently used idle connection that can still be used; the others it passes are
  /// dropped.
  private func takeIdle(_ host: Host) -> HTTPClientConnection? {
    while let connection = host.idle.popLast() {
      if connection.isReusable() { return connection }
      statistics.staleConnectionsDropped += 1
      observer?(.staleConnectionDropped)
      host.idle.append(connection)
      retire(connection)
    }
    return nil
  }

  /// Closes `connection` without its slot being reported free twice.
  private func retire(_ connection: HTTPClientConnection) {
    guard connection.isAttached else { return }
    detach(connection)
    connection.connection.close()
  }

  private func detach(_ connection: HTTPClientConnection) {
    connection.isAttached = false
    guard let host = hosts[connection.key] else { return }
    host.idle.removeAll { $0 === connection }
    host.open -= 1
  }

  private func updateTicker() {
    let waiting = hosts.values.contains { !$0.waiting.isEmpty }
    if waiting, tickerID == nil {
      tickerID = loop.addTicker(self)
    } else if !waiting, let id = tickerID {
      loop.removeTicker(id: id)
      tickerID = nil
    }
  }
}
