/// The loop side of a WebSocket: decodes, answers pings, pings a silent peer, runs the closing
/// handshake and hands text messages to the ``WebSocket``'s stream. Used only on its loop.
///
/// A close frame this end sends in reaction to the peer (the echo of the peer's close, or a
/// failure such as 1002 or 1007) waits until the application has taken every message already
/// delivered and asked for more, has called ``WebSocket/close(code:reason:)``, or until
/// `closeTimeout`: so replies the application sends to earlier messages go out before the
/// close frame, as the peer expects. When someone waits in ``WebSocket/waitUntilClosed()``, it
/// goes out at once.
final class WebSocketChannel: ConnectionHandler, @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `connection.loop`'s thread.
  private enum PendingClose {
    /// Echo the peer's close (nil: it had no code).
    case reply(WebSocketCloseCode?)
    /// Fail the connection with this code.
    case failure(WebSocketCloseCode, String)
  }

  let role: WebSocketRole
  let configuration: WebSocketConfiguration
  let connection: TCPConnection
  let shared = WebSocketShared()
  private let continuation: AsyncStream<String>.Continuation
  private weak var socket: WebSocket?
  private var decoder: WebSocketDecoder
  private var closeSent = false
  private var closeReceived = false
  private var pendingClose: PendingClose?
  private var lastReceived: Int64
  private var pingSentAt: Int64?
  private var closeDeadline: Int64?
  private let pingInterval: Int64?
  private let pingTimeout: Int64
  private let closeTimeout: Int64
  /// Called when the socket closes (the server counts its WebSockets with it).
  var onClosed: (() -> Void)?

  /// Takes over `connection`, whose handshake is done, and returns the public socket.
  static func open(
    role: WebSocketRole, connection: TCPConnection, configuration: WebSocketConfiguration,
    leftover: [UInt8]
  ) -> (WebSocketChannel, WebSocket) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: String.self, bufferingPolicy: .bufferingOldest(configuration.maxQueuedMessages))
    let channel = WebSocketChannel(
      role: role, connection: connection, configuration: configuration,
      continuation: continuation)
    let loop = connection.loop
    let messages = WebSocket.Messages(stream: stream, shared: channel.shared) {
      loop.execute { channel.consumerDrained() }
    }
    let socket = WebSocket(channel: channel, messages: messages)
    channel.socket = socket
    connection.handler = channel
    connection.maxBufferedBytes = configuration.maxBufferedBytes
    connection.writeTimeout = configuration.writeTimeout.milliseconds
    if !leftover.isEmpty {
      leftover.withUnsafeBytes { channel.received($0, on: connection) }
    }
    return (channel, socket)
  }

  private init(
    role: WebSocketRole, connection: TCPConnection, configuration: WebSocketConfiguration,
    continuation: AsyncStream<String>.Continuation
  ) {
    self.role = role
    self.connection = connection
    self.configuration = configuration
    self.continuation = continuation
    decoder = WebSocketDecoder(role: role, maxMessageSize: configuration.maxMessageSize)
    lastReceived = connection.loop.now
    pingInterval = configuration.pingInterval?.milliseconds
    pingTimeout = configuration.pingTimeout.milliseconds
    closeTimeout = configuration.closeTimeout.milliseconds
  }

  /// Writes a frame framed by ``WebSocket``.
  func sendQueued(_ frame: [UInt8]) {
    shared.state.withLock { $0.queuedBytes -= frame.count }
    guard !closeSent else { return }
    connection.write(frame)
  }

  /// The application's close: sends a pending reaction now, or starts the closing handshake.
  func close(code: WebSocketCloseCode, reason: String) {
    guard !closeSent, !connection.isClosing else { return }
    if pendingClose != nil {
      sendPendingClose()
      return
    }
    sendClose(code: code, reason: reason)
    closeDeadline = connection.loop.now + closeTimeout
  }

  /// The consumer of `messages` has taken everything and asked for more.
  func consumerDrained() {
    if pendingClose != nil { sendPendingClose() }
  }

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    lastReceived = connection.loop.now
    pingSentAt = nil
    guard pendingClose == nil else { return }
    decoder.append(bytes)
    while !connection.isClosing, pendingClose == nil, let event = decoder.next() {
      handle(event)
    }
  }

  func peerClosed(on connection: TCPConnection) {
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {}

  func tick(now: Int64, on connection: TCPConnection) {
    if let closeDeadline, now >= closeDeadline {
      if pendingClose != nil {
        sendPendingClose()
      } else {
        connection.close()
      }
      return
    }
    guard !closeSent, pendingClose == nil, let pingInterval else { return }
    if let pingSentAt {
      if now - pingSentAt >= pingTimeout { connection.close() }
    } else if now - lastReceived >= pingInterval {
      pingSentAt = now
      write(.ping, [])
    }
  }

  func closed(on connection: TCPConnection) {
    let waiters = shared.state.withLock { state in
      state.isClosing = true
      state.isClosed = true
      if state.closeCode == nil { state.closeCode = .abnormalClosure }
      if connection.peerStoppedReading { state.peerStoppedReading = true }
      defer { state.closeWaiters = [] }
      return state.closeWaiters
    }
    for waiter in waiters { waiter.resume() }
    continuation.finish()
    onClosed?()
    onClosed = nil
  }

  private func handle(_ event: WebSocketDecoder.Event) {
    switch event {
    case .text(let text):
      let size = text.utf8.count
      let limit = configuration.maxQueuedBytes
      let tooMuch = shared.state.withLock { state in
        state.queuedIncomingBytes += size
        return state.queuedIncomingBytes > limit
      }
      if tooMuch {
        fail(.policyViolation, "The receiver is too far behind.", waitForConsumer: false)
      } else if case .dropped = continuation.yield(text) {
        fail(.policyViolation, "The receiver is too far behind.", waitForConsumer: false)
      }
    case .binary(let bytes):
      if let handler = configuration.binaryMessageHandler, let socket {
        handler(socket, bytes)
      } else {
        fail(.unsupportedData, "Binary messages are not accepted.", waitForConsumer: true)
      }
    case .ping(let payload):
      if !closeSent { write(.pong, payload) }
    case .pong:
      break
    case .close(let code, let reason):
      closeReceived = true
      shared.state.withLock { state in
        state.closeCode = code ?? .noStatusReceived
        state.closeReason = reason
      }
      if closeSent {
        // Our close is answered: the handshake is complete.
        finishClosing()
      } else {
        wait(for: .reply(code))
      }
    case .failure(let code, let reason):
      fail(code, reason, waitForConsumer: true)
    }
  }

  /// Fails the connection (RFC 6455 section 7.1.7): a close frame with `code`, then the TCP
  /// close; reading stops at once.
  private func fail(_ code: WebSocketCloseCode, _ reason: String, waitForConsumer: Bool) {
    shared.state.withLock { state in
      if state.closeCode == nil {
        state.closeCode = code
        state.closeReason = reason
      }
    }
    if closeSent {
      finishClosing()
    } else if waitForConsumer {
      wait(for: .failure(code, reason))
    } else {
      sendClose(code: code, reason: reason)
      finishClosing()
    }
  }

  private func wait(for close: PendingClose) {
    pendingClose = close
    continuation.finish()
    closeDeadline = connection.loop.now + closeTimeout
    if !shared.state.withLock({ $0.closeWaiters.isEmpty }) {
      // Someone waits in `waitUntilClosed()` (a push-only handler): nothing to wait for. Sent
      // through the job queue, behind any message the application queued before waiting.
      connection.loop.execute { [self] in consumerDrained() }
    }
  }

  private func sendPendingClose() {
    guard let pendingClose else { return }
    self.pendingClose = nil
    switch pendingClose {
    case .reply(let code):
      // Echo the peer's code (section 5.5.1); an empty close gets an empty close.
      markCloseSent()
      write(.close, code.map { WebSocketFrame.closePayload(code: $0, reason: "") } ?? [])
    case .failure(let code, let reason):
      sendClose(code: code, reason: reason)
    }
    finishClosing()
  }

  /// Both close frames are out (or the connection failed): the server closes the TCP
  /// connection first (section 7.1.1); the lingering close lets the peer read everything.
  private func finishClosing() {
    closeDeadline = nil
    continuation.finish()
    connection.closeAfterFlush(linger: true)
  }

  private func sendClose(code: WebSocketCloseCode, reason: String) {
    markCloseSent()
    shared.state.withLock { state in
      if state.closeCode == nil {
        state.closeCode = code
        state.closeReason = reason
      }
    }
    write(.close, WebSocketFrame.closePayload(code: code, reason: reason))
  }

  private func markCloseSent() {
    closeSent = true
    shared.state.withLock { $0.isClosing = true }
  }

  private func write(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
    connection.write(
      WebSocketFrame.encode(
        opcode: opcode, payload: payload,
        maskingKey: role == .client ? randomMaskingKey() : nil))
  }
}
