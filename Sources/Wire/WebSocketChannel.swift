/// The loop side of a WebSocket: decodes, answers pings, pings a silent peer, runs the closing
/// handshake and hands text messages to the ``WebSocket``'s stream. Used only on its loop.
final class WebSocketChannel: ConnectionHandler, @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `connection.loop`'s thread.
  let role: WebSocketRole
  let configuration: WebSocketConfiguration
  let connection: TCPConnection
  private let shared = WebSocketShared()
  private let continuation: AsyncStream<String>.Continuation
  private weak var socket: WebSocket?
  private var decoder: WebSocketDecoder
  private var closeSent = false
  private var closeReceived = false
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
    let socket = WebSocket(channel: channel, shared: channel.shared, messages: stream)
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

  /// Starts the closing handshake (or does nothing when it has started).
  func close(code: WebSocketCloseCode, reason: String) {
    guard !closeSent, !connection.isClosing else { return }
    sendClose(code: code, reason: reason)
    closeDeadline = connection.loop.now + closeTimeout
  }

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    lastReceived = connection.loop.now
    pingSentAt = nil
    decoder.append(bytes)
    while !connection.isClosing, let event = decoder.next() {
      handle(event)
    }
  }

  func peerClosed(on connection: TCPConnection) {
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {}

  func tick(now: Int64, on connection: TCPConnection) {
    if let closeDeadline, now >= closeDeadline {
      connection.close()
      return
    }
    guard !closeSent, let pingInterval else { return }
    if let pingSentAt {
      if now - pingSentAt >= pingTimeout { connection.close() }
    } else if now - lastReceived >= pingInterval {
      pingSentAt = now
      write(.ping, [])
    }
  }

  func closed(on connection: TCPConnection) {
    shared.state.withLock { state in
      state.isClosing = true
      if state.closeCode == nil { state.closeCode = .abnormalClosure }
    }
    continuation.finish()
    onClosed?()
    onClosed = nil
  }

  private func handle(_ event: WebSocketDecoder.Event) {
    switch event {
    case .text(let text):
      if case .dropped = continuation.yield(text) {
        fail(.policyViolation, "The receiver is too far behind.")
      }
    case .binary(let bytes):
      if let handler = configuration.binaryMessageHandler, let socket {
        handler(socket, bytes)
      } else {
        fail(.unsupportedData, "Binary messages are not accepted.")
      }
    case .ping(let payload):
      if !closeSent { write(.pong, payload) }
    case .pong:
      break
    case .close(let code, let reason):
      closeReceived = true
      record(code ?? .noStatusReceived, reason)
      if !closeSent {
        // Echo the peer's code (RFC 6455 section 5.5.1); an empty close gets an empty close.
        closeSent = true
        shared.state.withLock { $0.isClosing = true }
        write(.close, code.map { WebSocketFrame.closePayload(code: $0, reason: "") } ?? [])
      }
      // The server closes the TCP connection first (section 7.1.1); the client gives it a
      // moment through the lingering close.
      connection.closeAfterFlush(linger: true)
    case .failure(let code, let reason):
      fail(code, reason)
    }
  }

  /// Fails the connection (section 7.1.7): a close frame with `code`, then the TCP close.
  private func fail(_ code: WebSocketCloseCode, _ reason: String) {
    record(code, reason)
    if !closeSent { sendClose(code: code, reason: reason) }
    connection.closeAfterFlush(linger: true)
  }

  private func sendClose(code: WebSocketCloseCode, reason: String) {
    closeSent = true
    shared.state.withLock { $0.isClosing = true }
    if !closeReceived {
      shared.state.withLock { state in
        if state.closeCode == nil {
          state.closeCode = code
          state.closeReason = reason
        }
      }
    }
    write(.close, WebSocketFrame.closePayload(code: code, reason: reason))
  }

  private func record(_ code: WebSocketCloseCode, _ reason: String) {
    shared.state.withLock { state in
      state.isClosing = true
      if state.closeCode == nil || closeReceived {
        state.closeCode = code
        state.closeReason = reason
      }
    }
  }

  private func write(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
    connection.write(
      WebSocketFrame.encode(
        opcode: opcode, payload: payload,
        maskingKey: role == .client ? randomMaskingKey() : nil))
  }
}
