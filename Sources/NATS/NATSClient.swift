import Dispatch
import Glibc
import Support
import Synchronization
import Wire

/// A NATS server's address: `nats://host:port`, or `tls://host:port` for TLS (port 4222 when
/// none is given).
public struct NATSServerURL: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var tls: Bool

  /// Nil for anything else than `nats://` or `tls://` with a host and a valid port.
  public init?(_ text: String) {
    let scheme: Bool
    let rest: Substring
    if text.hasPrefix("nats://") {
      (scheme, rest) = (false, text.dropFirst(7))
    } else if text.hasPrefix("tls://") {
      (scheme, rest) = (true, text.dropFirst(6))
    } else {
      return nil
    }
    let hostPort = rest.split(separator: "/", maxSplits: 1).first ?? ""
    var host = Substring(hostPort)
    var port = 4222
    if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
      guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65_535) ~= number
      else { return nil }
      (host, port) = (hostPort[..<colon], number)
    }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
    guard !host.isEmpty, !host.contains("@") else { return nil }
    (self.host, self.port, self.tls) = (String(host), port, scheme)
  }

  public var description: String { "\(tls ? "tls" : "nats")://\(host):\(port)" }
}

/// One connection to a NATS cluster, kept up: publishes in order and hands over the messages
/// of the subjects it subscribed to.
///
/// It connects to the servers in turn, starting at a random one; after `CONNECT` it
/// subscribes and sends `PING`, and counts as connected at the `PONG` (so a server that
/// refused the `CONNECT` is never taken for up). A connection that ends, a `-ERR`, or two
/// `PING`s gone unanswered (a server cut off without a word: `pingInterval` each) makes it
/// try the next server after a wait that grows with the failures, with jitter (`Backoff`).
/// What is published while it is away waits, up to `maxPendingBytes`, and goes out in order
/// once connected again; past that it is dropped and counted (`droppedPublishes`).
///
/// Everything runs on one `ClientLoop` thread; the callbacks are called there, and must not
/// block.
public final class NATSClient: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `loop`'s thread.

  public struct Configuration: Sendable {
    public var servers: [NATSServerURL]
    /// The name the servers show for this connection.
    public var name: String
    public var subjects: [String]
    public var pingInterval: Duration = .seconds(2)
    public var reconnect = RetryPolicy(base: .milliseconds(100), cap: .seconds(2))
    public var maxPendingBytes = 8 << 20
    /// For `tls://` servers (and any server that requires TLS): the trust roots.
    public var tls: TLSContext?

    public init(servers: [NATSServerURL], name: String, subjects: [String]) {
      self.servers = servers
      self.name = name
      self.subjects = subjects
    }
  }

  private enum Phase {
    case idle, connecting, awaitingInfo, handshaking, awaitingPong, connected, stopped
  }

  // The callbacks are set before `start()` (the loop's jobs read them after), and called on
  // the loop's thread.

  /// A message on a subscribed subject: the subject and its payload.
  public var onMessage: (@Sendable (String, [UInt8]) -> Void)?
  /// Connected (again, when `true`) to the server named.
  public var onConnected: (@Sendable (_ again: Bool, _ server: String) -> Void)?
  /// The connection to a server ended, or none could be made, and why.
  public var onDisconnected: (@Sendable (String) -> Void)?

  public let configuration: Configuration
  static let heldLongEnough = Duration.seconds(10)
  private let loop: ClientLoop
  private let random = SystemRandomSource()
  private var phase = Phase.idle
  private var channel: StreamChannel?
  private var server: NATSServerURL?
  private var parser = NATSParser()
  private var nextServer: Int
  private var backoff: Backoff
  private var pending: [[UInt8]] = []
  private var pendingBytes = 0
  private var unansweredPings = 0
  /// Tells a timer whether the connection it was set for is still the one.
  private var generation = 0
  private var connectedBefore = false
  /// Publishes dropped because too many waited for a connection (read on the loop's thread).
  private(set) var droppedPublishes = 0
  /// Publishes made on any thread, waiting for the loop's one job that sends them; none are
  /// taken once stopped.
  private let outgoing = Mutex<(commands: [[UInt8]], scheduled: Bool, stopped: Bool)>(
    ([], false, false))

  public init(_ configuration: Configuration, loopName: String = "nats") throws(SystemError) {
    precondition(!configuration.servers.isEmpty, "NATSClient needs a server")
    self.configuration = configuration
    loop = try ClientLoop(name: loopName)
    nextServer = Int(SystemRandomSource().next() % UInt64(configuration.servers.count))
    backoff = Backoff(configuration.reconnect)
  }

  /// Connects, and keeps connecting until `stop()`.
  public func start() {
    loop.execute { [self] in
      guard phase == .idle else { return }
      connectNext()
    }
  }

  /// Closes the connection and ends the loop's thread; nothing is published after.
  public func stop() {
    outgoing.withLock { $0 = ([], false, true) }
    loop.execute { [self] in
      phase = .stopped
      generation += 1
      channel?.close()
      channel = nil
      loop.stop()
    }
  }

  /// Publishes `payload` on `subject`: now when connected, else when connected again. The
  /// publishes of a burst go out together: one job on the loop and one write for all those
  /// made before the loop got to them.
  public func publish(_ subject: String, _ payload: [UInt8]) {
    let command = NATSCommand.publish(subject, payload)
    let wake = outgoing.withLock { outgoing in
      guard !outgoing.stopped else { return false }
      outgoing.commands.append(command)
      defer { outgoing.scheduled = true }
      return !outgoing.scheduled
    }
    guard wake else { return }
    loop.execute { [self] in
      let commands = outgoing.withLock { outgoing in
        defer { (outgoing.commands, outgoing.scheduled) = ([], false) }
        return outgoing.commands
      }
      if phase == .connected, let channel {
        channel.send(Array(commands.joined()))
      } else if phase != .stopped {
        for command in commands {
          guard pendingBytes + command.count <= configuration.maxPendingBytes else {
            droppedPublishes += 1
            continue
          }
          pending.append(command)
          pendingBytes += command.count
        }
      }
    }
  }

  // MARK: - Connecting (on the loop's thread)

  private func connectNext() {
    guard phase != .stopped else { return }
    let target = configuration.servers[nextServer % configuration.servers.count]
    nextServer += 1
    phase = .connecting
    generation += 1
    let attempt = generation
    // A name is resolved off the loop's thread (getaddrinfo blocks).
    DispatchQueue.global().async { [self] in
      let address = StreamChannel.numericAddress(of: target.host)
      guard let address else {
        loop.execute { [self] in
          failed(attempt, "cannot resolve \(target.host)")
        }
        return
      }
      StreamChannel.connect(host: address, port: target.port, on: loop) { [self] result in
        switch result {
        case .failure(let error): self.failed(attempt, "\(target): \(error)")
        case .success(let channel): self.opened(channel, to: target, attempt: attempt)
        }
      }
    }
  }

  private func opened(_ opened: StreamChannel, to target: NATSServerURL, attempt: Int) {
    guard attempt == generation, phase == .connecting else {
      opened.close()
      return
    }
    channel = opened
    server = target
    parser = NATSParser()
    phase = .awaitingInfo
    opened.onBytes = { [self] bytes in
      parser.append(bytes)
      readOperations(attempt)
    }
    opened.onTLSEstablished = { [self] in
      guard attempt == generation else { return }
      sendConnect(tls: true)
    }
    opened.onClose = { [self] failure in
      failed(attempt, "\(target): \(failure)")
    }
    // Nothing from a server that accepted and went quiet: give up on it.
    after(.seconds(5), attempt) { [self] in
      if phase == .awaitingInfo || phase == .handshaking || phase == .awaitingPong {
        drop(attempt, "\(target) did not answer")
      }
    }
  }

  private func readOperations(_ attempt: Int) {
    while attempt == generation {
      let operation: NATSOperation?
      do {
        operation = try parser.next()
      } catch {
        return drop(attempt, "\(server.map(String.init(describing:)) ?? "?"): \(error)")
      }
      guard let operation else { return }
      handle(operation, attempt)
    }
  }

  private func handle(_ operation: NATSOperation, _ attempt: Int) {
    switch operation {
    case .info(let json):
      guard phase == .awaitingInfo else { return }
      let wantsTLS = server?.tls == true || json.contains(#""tls_required":true"#)
      guard wantsTLS else { return sendConnect(tls: false) }
      guard let context = configuration.tls, let channel, let server else {
        return drop(attempt, "\(server?.description ?? "?") requires TLS: no trust roots given")
      }
      do {
        try channel.startTLS(context, serverName: server.host)
        phase = .handshaking
      } catch {
        drop(attempt, "\(server): TLS: \(error)")
      }
    case .ping:
      channel?.send(NATSCommand.pong)
    case .pong:
      unansweredPings = 0
      if phase == .awaitingPong { becameConnected(attempt) }
    case .message(let subject, _, let payload):
      onMessage?(subject, payload)
    case .ok:
      break
    case .error(let reason):
      drop(attempt, "\(server?.description ?? "?") said -ERR \(reason)")
    }
  }

  private func sendConnect(tls: Bool) {
    guard let channel else { return }
    var bytes = NATSCommand.connect(name: configuration.name, tlsRequired: tls)
    for (index, subject) in configuration.subjects.enumerated() {
      bytes += NATSCommand.subscribe(subject, id: String(index + 1))
    }
    channel.send(bytes + NATSCommand.ping)
    phase = .awaitingPong
  }

  private func becameConnected(_ attempt: Int) {
    phase = .connected
    // The wait before the next try goes back to its base only once a connection has held a
    // while: a server that takes connections and drops them at once is not tried again (and
    // the node's sockets closed by each resume) ten times a second.
    after(Self.heldLongEnough, attempt) { [self] in
      if phase == .connected { backoff.reset() }
    }
    unansweredPings = 0
    if !pending.isEmpty {
      channel?.send(Array(pending.joined()))
      pending.removeAll()
      pendingBytes = 0
    }
    onConnected?(connectedBefore, server?.description ?? "?")
    connectedBefore = true
    keepPinging(attempt)
  }

  /// A `PING` every `pingInterval`; two without their `PONG` and the server is taken for gone.
  private func keepPinging(_ attempt: Int) {
    after(configuration.pingInterval, attempt) { [self] in
      guard phase == .connected else { return }
      if unansweredPings >= 2 {
        return drop(attempt, "\(server?.description ?? "?") stopped answering PING")
      }
      unansweredPings += 1
      channel?.send(NATSCommand.ping)
      keepPinging(attempt)
    }
  }

  /// Ends the connection of `attempt` and tries the next server.
  private func drop(_ attempt: Int, _ reason: String) {
    guard attempt == generation else { return }
    channel?.close()
    failed(attempt, reason)
  }

  private func failed(_ attempt: Int, _ reason: String) {
    guard attempt == generation, phase != .stopped else { return }
    channel = nil
    phase = .idle
    generation += 1
    onDisconnected?(reason)
    let wait = backoff.failed(random: random)
    let next = generation
    after(wait, next) { [self] in
      if phase == .idle { connectNext() }
    }
  }

  /// Runs `job` on the loop after `delay`, if the connection is still that of `attempt`.
  private func after(_ delay: Duration, _ attempt: Int, _ job: @escaping () -> Void) {
    let box = UncheckedJob(job)
    DispatchQueue.global().asyncAfter(deadline: .now() + delay.secondsValue) { [self] in
      loop.execute { [self] in
        if attempt == generation { box.job() }
      }
    }
  }
}

/// A loop-thread job carried through a dispatch queue (it touches only the loop's state).
private struct UncheckedJob: @unchecked Sendable {
  let job: () -> Void
  init(_ job: @escaping () -> Void) { self.job = job }
}
