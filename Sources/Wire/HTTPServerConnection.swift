/// One HTTP connection on the server: parses requests, runs the handler as a task per request,
/// writes responses in order, enforces the timeouts, and hands the socket to a
/// ``WebSocketChannel`` on upgrade. Used only on its loop's thread.
final class HTTPServerConnection: ConnectionHandler, @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the loop's thread; the handler's
  // task only captures `self` to hand the response back through `loop.execute`.
  private enum State {
    /// Waiting for (or reading) a request.
    case reading
    /// The handler is running; reading is paused.
    case handling
    /// The response is being written; reading is paused.
    case writing
    /// An error response or a last response is on its way; the socket closes after it.
    case closing
  }

  private let server: ServerLoop
  private let connection: TCPConnection
  private var parser: HTTPRequestParser
  private var state = State.reading
  private var idleSince: Int64
  private var requestStartedAt: Int64?
  private var bodyStartedAt: Int64?
  private var closeAfterResponse = false
  private var servedRequests = 0
  private let headerTimeout: Int64
  private let bodyTimeout: Int64
  private let idleTimeout: Int64

  init(server: ServerLoop, connection: TCPConnection) {
    self.server = server
    self.connection = connection
    parser = HTTPRequestParser(limits: server.configuration.limits)
    idleSince = connection.loop.now
    headerTimeout = server.configuration.headerTimeout.milliseconds
    bodyTimeout = server.configuration.bodyTimeout.milliseconds
    idleTimeout = server.configuration.idleTimeout.milliseconds
  }

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    parser.append(bytes)
    if case .reading = state {
      process()
    } else {
      // A pipelined request: it waits, unread, until this response is written.
      connection.pauseReading()
    }
  }

  func peerClosed(on connection: TCPConnection) {
    if case .reading = state {
      connection.close()
    } else {
      // The peer half-closed after sending its request: answer, then close.
      closeAfterResponse = true
    }
  }

  func writeDrained(on connection: TCPConnection) {
    guard case .writing = state else { return }
    if closeAfterResponse {
      // The server began shutting down while this response was being written.
      state = .closing
      connection.closeAfterFlush(linger: true)
      return
    }
    state = .reading
    idleSince = connection.loop.now
    connection.resumeReading()
    process()
  }

  func tick(now: Int64, on connection: TCPConnection) {
    guard case .reading = state else { return }
    if let bodyStartedAt {
      if now - bodyStartedAt >= bodyTimeout { timeOut("The body did not arrive in time.") }
    } else if let requestStartedAt {
      if now - requestStartedAt >= headerTimeout { timeOut("The headers did not arrive in time.") }
    } else if now - idleSince >= (servedRequests == 0 ? headerTimeout : idleTimeout) {
      // A new connection gets the header timeout to start its first request, so connections
      // that never send anything cannot be held open for the whole idle timeout.
      connection.close()
    }
  }

  func closed(on connection: TCPConnection) {
    server.connectionClosed(connection)
  }

  func tlsEstablished(on connection: TCPConnection) {
    // The handshake took from the header timeout; the first request gets a whole one.
    idleSince = connection.loop.now
  }

  func tlsFailed(_ error: TLSError, on connection: TCPConnection) {
    server.configuration.onTLSFailure?(
      TLSFailure(error: error, remoteAddress: connection.remoteAddress))
    state = .closing
    guard error == .plaintextPeer else { return }
    // An HTTP client on the HTTPS port: tell it so, in plaintext, as nginx does.
    reportRejection(.badRequest, code: "tls_required", method: nil)
    let response = HTTPResponse.error(
      .badRequest, code: "tls_required",
      message: "This port speaks HTTPS only: use https:// (or wss://).")
    connection.writeUnencrypted(
      response.serialized(
        includeBody: true, keepAlive: false, minorVersion: 1, date: server.httpDate()))
  }

  /// The server is stopping: close now when idle, else after the current response.
  func beginShutdown() {
    closeAfterResponse = true
    if case .reading = state, requestStartedAt == nil, !parser.hasPartialRequest {
      connection.close()
    }
  }

  private func process() {
    while case .reading = state {
      guard let event = parser.next() else {
        if requestStartedAt == nil && parser.hasPartialRequest {
          requestStartedAt = connection.loop.now
        }
        return
      }
      switch event {
      case .head(let head):
        bodyStartedAt = connection.loop.now
        if head.expectsContinue && head.framing != .none && head.framing != .length(0) {
          connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
      case .request(let head, let body):
        requestStartedAt = nil
        bodyStartedAt = nil
        dispatch(head, body)
      case .failure(let error):
        reportRejection(error.status, code: error.code, method: nil)
        state = .closing
        let response = HTTPResponse.error(error.status, code: error.code, message: error.message)
        connection.write(
          response.serialized(
            includeBody: true, keepAlive: false, minorVersion: 1, date: server.httpDate()))
        connection.closeAfterFlush(linger: true)
      }
    }
  }

  private func reportRejection(_ status: HTTPStatus, code: String, method: String?) {
    server.configuration.onRejected?(
      HTTPRejection(
        status: status, code: code, method: method, remoteAddress: connection.remoteAddress))
  }

  private func timeOut(_ message: String) {
    reportRejection(.requestTimeout, code: "timeout", method: nil)
    state = .closing
    let response = HTTPResponse.error(.requestTimeout, code: "timeout", message: message)
    connection.write(
      response.serialized(
        includeBody: true, keepAlive: false, minorVersion: 1, date: server.httpDate()))
    connection.closeAfterFlush(linger: true)
  }

  private func dispatch(_ head: HTTPRequestHead, _ body: [UInt8]) {
    state = .handling
    servedRequests += 1
    connection.pauseReading()
    let request = HTTPRequest(head: head, body: body, remoteAddress: connection.remoteAddress)
    let handler = server.handler
    let loop = connection.loop
    Task {
      let response = await handler(request)
      loop.execute { self.respond(response, to: head) }
    }
  }

  private func respond(_ response: HTTPResponse, to head: HTTPRequestHead) {
    guard !connection.isClosed else { return }
    if let upgrade = response.upgrade {
      self.upgrade(upgrade, response: response, head: head)
      return
    }
    let keepAlive = head.keepAlive && !closeAfterResponse && !server.isShuttingDown
    connection.write(
      response.serialized(
        includeBody: head.method != .head, keepAlive: keepAlive, minorVersion: head.minorVersion,
        date: server.httpDate()))
    if keepAlive {
      state = .writing
      if connection.bufferedBytes == 0 { writeDrained(on: connection) }
    } else {
      state = .closing
      connection.closeAfterFlush(linger: true)
    }
  }

  private func upgrade(_ upgrade: WebSocketUpgrade, response: HTTPResponse, head: HTTPRequestHead) {
    if let rejection = WebSocketHandshake.rejection(of: head) {
      reportRejection(
        rejection.status,
        code: rejection.status == .upgradeRequired ? "upgrade_required" : "bad_request",
        method: head.method.rawValue)
      state = .closing
      connection.write(rejection.serialized(includeBody: true, keepAlive: false, minorVersion: 1))
      connection.closeAfterFlush(linger: true)
      return
    }
    let key = head.headers["Sec-WebSocket-Key"] ?? ""
    var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    text += "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(for: key))\r\n"
    for field in response.headers.fields { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    connection.write(Array(text.utf8))
    let server = self.server
    let (channel, socket) = WebSocketChannel.open(
      role: .server, connection: connection,
      configuration: upgrade.configuration ?? server.configuration.webSocket,
      leftover: parser.takeRemainingBytes())
    channel.onClosed = { [connection] in server.connectionClosed(connection) }
    connection.resumeReading()
    if server.isShuttingDown {
      channel.close(code: .goingAway, reason: "The server is shutting down.")
    }
    let handler = upgrade.handler
    Task {
      await handler(socket)
      socket.close()
    }
  }
}
