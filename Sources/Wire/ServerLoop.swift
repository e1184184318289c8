import Glibc

/// A server's part of one event loop: accepts from the shared listening socket (registered
/// with `EPOLLEXCLUSIVE`, so one loop wakes per connection), counts its connections, pauses
/// accepting at its share of the connection limit, and drives the graceful shutdown.
final class ServerLoop: Selectable, @unchecked Sendable {
  // @unchecked: after `startAccepting()` (which runs before the loop's thread starts), every
  // property is touched only on `loop`'s thread.
  let loop: EventLoop
  let configuration: HTTPServer.Configuration
  let handler: HTTPServer.Handler
  private let listener: Int32
  private let maxConnections: Int
  private var listenerID: UInt64?
  private var acceptPausedUntil: Int64?
  private var connections: [ObjectIdentifier: TCPConnection] = [:]
  private(set) var isShuttingDown = false
  private var shutdownDeadline: Int64 = 0
  private var shutdownDone: CheckedContinuation<Void, Never>?
  private var dateSecond = 0
  private var dateText = ""

  init(
    loop: EventLoop, listener: Int32, configuration: HTTPServer.Configuration,
    maxConnections: Int, handler: @escaping HTTPServer.Handler
  ) {
    self.loop = loop
    self.listener = listener
    self.configuration = configuration
    self.maxConnections = maxConnections
    self.handler = handler
  }

  /// Registers for ticks; called once, before the loop's thread starts.
  func attach() throws {
    loop.addTicker(self)
    try startAccepting()
  }

  private func startAccepting() throws {
    guard listenerID == nil, !isShuttingDown else { return }
    listenerID = try loop.register(
      self, fd: listener, events: EventLoop.readable | EventLoop.exclusive)
  }

  private func stopAccepting() {
    guard let listenerID else { return }
    loop.deregister(id: listenerID, fd: listener)
    self.listenerID = nil
  }

  func handleEvents(_ events: UInt32) {
    // Level-triggered: whatever is left is reported again on the next wait.
    for _ in 0..<64 {
      guard connections.count < maxConnections else {
        stopAccepting()
        return
      }
      let accepted: (fd: Int32, remote: String)?
      do {
        accepted = try Socket.accept(listener)
      } catch {
        // Out of descriptors (EMFILE/ENFILE) or memory: pause instead of spinning.
        stopAccepting()
        acceptPausedUntil = loop.now + 200
        return
      }
      guard let accepted else { return }
      adopt(fd: accepted.fd, remote: accepted.remote)
    }
  }

  private func adopt(fd: Int32, remote: String) {
    let connection = TCPConnection(
      fd: fd, loop: loop, remoteAddress: remote, maxBufferedBytes: Int.max,
      writeTimeout: configuration.writeTimeout.milliseconds)
    connection.handler = HTTPServerConnection(server: self, connection: connection)
    do {
      if let tls = configuration.tls {
        try connection.startTLS(server: tls, handshakeTimeout: configuration.headerTimeout)
      }
      try connection.register()
    } catch {
      if let error = error as? TLSError {
        configuration.onTLSFailure?(TLSFailure(error: error, remoteAddress: remote))
      }
      close(fd)
      return
    }
    connections[ObjectIdentifier(connection)] = connection
  }

  /// Called by the connection's handler when its socket closes.
  func connectionClosed(_ connection: TCPConnection) {
    connections[ObjectIdentifier(connection)] = nil
    if isShuttingDown {
      if connections.isEmpty { finishShutdown() }
    } else if listenerID == nil && acceptPausedUntil == nil && connections.count < maxConnections {
      try? startAccepting()
    }
  }

  func tick(now: Int64) {
    if isShuttingDown {
      if now >= shutdownDeadline {
        for connection in Array(connections.values) { connection.close() }
        finishShutdown()
      }
      return
    }
    if let until = acceptPausedUntil, now >= until {
      acceptPausedUntil = nil
      if connections.count < maxConnections { try? startAccepting() }
    }
  }

  /// Stops accepting, asks every connection to finish, and returns once all are closed.
  func shutdown() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      loop.execute { [self] in
        isShuttingDown = true
        shutdownDone = done
        shutdownDeadline = loop.now + configuration.shutdownTimeout.milliseconds
        stopAccepting()
        for connection in Array(connections.values) {
          switch connection.handler {
          case let http as HTTPServerConnection: http.beginShutdown()
          case let socket as WebSocketChannel:
            socket.close(code: .goingAway, reason: "The server is shutting down.")
          default: connection.close()
          }
        }
        if connections.isEmpty { finishShutdown() }
      }
    }
  }

  /// The `Date` header value (RFC 9110 IMF-fixdate), formatted at most once a second.
  func httpDate() -> String {
    let now = time(nil)
    if now != dateSecond {
      dateSecond = now
      var seconds = now
      var parts = tm()
      gmtime_r(&seconds, &parts)
      var text = [CChar](repeating: 0, count: 40)
      let length = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
      dateText = String(
        decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return dateText
  }

  private func finishShutdown() {
    shutdownDone?.resume()
    shutdownDone = nil
  }
}
