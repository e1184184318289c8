import Synchronization

/// An open WebSocket, on the server (from ``HTTPResponse/webSocket(headers:configuration:_:)``)
/// or the client (from ``WebSocketClient/connect(to:headers:configuration:connectTimeout:)``).
///
/// Every method is safe from any thread and never blocks: sends are framed on the caller's
/// thread and queued for the socket's event loop. Received text messages arrive in order on
/// ``messages``, which finishes when the peer's close frame arrives, when the connection
/// fails, or when it drops; ``closeCode`` then tells how. Pings are answered by the loop; the
/// loop also pings a silent peer and drops it when it stays silent (see
/// ``WebSocketConfiguration``).
///
/// When the peer closes (or breaks the protocol), this end's close frame goes out once the
/// consumer of ``messages`` has seen the end of the sequence, so replies to the last
/// messages, sent from the loop body, precede it. Calling ``close(code:reason:)`` sends it
/// at once, and so does waiting in ``waitUntilClosed()`` (what a push-only handler that never
/// iterates ``messages`` does); otherwise a consumer that stops iterating without closing
/// delays it by at most ``WebSocketConfiguration/closeTimeout``.
///
/// Dropping the last reference to an open socket closes it with 1001.
///
/// ## Topics
/// - ``messages``
/// - ``send(text:)``
/// - ``send(binary:)``
/// - ``close(code:reason:)``
/// - ``closeCode``
public final class WebSocket: Sendable {
  /// Received text messages, in order. Iterate it once, from one task.
  public let messages: Messages
  /// The peer's numeric IP address.
  public let remoteAddress: String
  /// Which end this is; clients mask what they send.
  public let role: WebSocketRole

  let shared: WebSocketShared
  private let channel: WebSocketChannel
  private let loop: EventLoop

  init(channel: WebSocketChannel, messages: Messages) {
    self.channel = channel
    self.shared = channel.shared
    self.messages = messages
    self.loop = channel.connection.loop
    remoteAddress = channel.connection.remoteAddress
    role = channel.role
  }

  deinit {
    let channel = self.channel
    loop.execute { channel.close(code: .goingAway, reason: "") }
  }

  /// Sends a text message. Throws ``WebSocketError/closed`` once the socket is closing.
  public func send(text: String) throws(WebSocketError) {
    try send(opcode: .text, payload: text.utf8)
  }

  /// Sends a binary message.
  public func send(binary: [UInt8]) throws(WebSocketError) {
    try send(opcode: .binary, payload: binary)
  }

  /// Starts the closing handshake: sends a close frame and closes the connection when the
  /// peer answers (or after ``WebSocketConfiguration/closeTimeout``). ``messages`` finishes
  /// then. Does nothing when the socket is already closing.
  public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
    let channel = self.channel
    loop.execute { channel.close(code: code, reason: reason) }
  }

  /// Returns once the TCP connection is closed: after the closing handshake, a failure, a
  /// drop, or the close timeout. ``messages`` has finished by then. While someone waits here,
  /// a close frame owed to the peer is sent without waiting for the consumer of ``messages``.
  public func waitUntilClosed() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let closed = shared.state.withLock { state in
        if state.isClosed { return true }
        state.closeWaiters.append(continuation)
        return false
      }
      if closed {
        continuation.resume()
      } else {
        let channel = self.channel
        loop.execute { channel.consumerDrained() }
      }
    }
  }

  /// How the connection ended, once ``messages`` has finished: the code of the peer's close
  /// frame (1005 when it had none), the code this end failed the connection with, or 1006
  /// when the connection dropped without a close frame. Nil while open.
  public var closeCode: WebSocketCloseCode? {
    shared.state.withLock { $0.closeCode }
  }

  /// The reason that came with ``closeCode``.
  public var closeReason: String {
    shared.state.withLock { $0.closeReason }
  }

  /// The connection was dropped because the peer stopped reading: more than
  /// ``WebSocketConfiguration/maxBufferedBytes`` waited for it, or a write made no progress for
  /// ``WebSocketConfiguration/writeTimeout`` (``closeCode`` is 1006 then).
  public var peerStoppedReading: Bool {
    shared.state.withLock { $0.peerStoppedReading }
  }

  private func send(opcode: WebSocketOpcode, payload: some Collection<UInt8>)
    throws(WebSocketError)
  {
    let frame = WebSocketFrame.encode(
      opcode: opcode, payload: payload, maskingKey: role == .client ? randomMaskingKey() : nil)
    let limit = channel.configuration.maxBufferedBytes
    let accepted: Result<Void, WebSocketError> = shared.state.withLock { state in
      if state.isClosing { return .failure(.closed) }
      if state.queuedBytes + frame.count > limit {
        state.peerStoppedReading = true
        return .failure(.bufferFull)
      }
      state.queuedBytes += frame.count
      return .success(())
    }
    if case .failure(let error) = accepted {
      if error == .bufferFull {
        let channel = self.channel
        loop.execute { channel.connection.close() }
      }
      throw error
    }
    let channel = self.channel
    loop.execute { channel.sendQueued(frame) }
  }
}

extension WebSocket {
  /// The text messages of a ``WebSocket``, in order: an `AsyncSequence` of `String` that ends
  /// when the socket closes, fails or drops. Wrap it in an `AsyncStream` if a type needs one:
  /// `AsyncStream { continuation in … for await text in socket.messages { … } }`.
  public struct Messages: AsyncSequence, Sendable {
    public typealias Element = String
    public typealias Failure = Never

    let stream: AsyncStream<String>
    let shared: WebSocketShared
    let onDrained: @Sendable () -> Void

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: stream.makeAsyncIterator(), shared: shared, onDrained: onDrained)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncStream<String>.Iterator
      let shared: WebSocketShared
      let onDrained: @Sendable () -> Void

      public mutating func next() async -> String? {
        guard let text = await base.next(isolation: #isolation) else {
          onDrained()
          return nil
        }
        let size = text.utf8.count
        shared.state.withLock { $0.queuedIncomingBytes -= size }
        return text
      }
    }
  }
}

extension WebSocket {
  /// The text messages as an `AsyncStream<String>`, for an API that needs that concrete type
  /// (the client engine's `LiveTransport`). It pulls from ``messages`` only when its own
  /// consumer asks, so it adds no buffer and keeps every limit and the close ordering of
  /// ``messages``. Make one per socket.
  public func makeMessageStream() -> AsyncStream<String> {
    let box = IteratorBox(messages.makeAsyncIterator())
    return AsyncStream(unfolding: { await box.next() })
  }
}

/// Holds the iterator an `AsyncStream(unfolding:)` pulls from. A second consumer iterating at
/// the same time gets the end of the sequence instead of a data race.
private final class IteratorBox: @unchecked Sendable {
  // @unchecked: `iterator` is used only by the one call that turned `busy` from false to true.
  private var iterator: WebSocket.Messages.AsyncIterator
  private let busy = Atomic<Bool>(false)

  init(_ iterator: WebSocket.Messages.AsyncIterator) {
    self.iterator = iterator
  }

  func next() async -> String? {
    guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    else { return nil }
    defer { busy.store(false, ordering: .releasing) }
    return await iterator.next()
  }
}

/// A random masking key per frame, as RFC 6455 section 5.3 requires of clients.
func randomMaskingKey() -> UInt32 {
  var generator = SystemRandomNumberGenerator()
  return generator.next()
}

/// The state a ``WebSocket`` and its loop-side channel share.
final class WebSocketShared: Sendable {
  struct State {
    var isClosing = false
    var closeCode: WebSocketCloseCode?
    var closeReason = ""
    /// Bytes handed to the loop and not yet in the connection's buffer.
    var queuedBytes = 0
    /// Bytes of received messages not yet taken by the consumer.
    var queuedIncomingBytes = 0
    /// Whether the TCP connection is closed.
    var isClosed = false
    /// It was dropped because the peer stopped reading (see ``WebSocket/peerStoppedReading``).
    var peerStoppedReading = false
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
  }

  let state = Mutex(State())
}

extension WebSocket: Hashable {
  /// Sockets are equal only to themselves, so a server can keep its open sockets in a `Set`.
  public static func == (lhs: WebSocket, rhs: WebSocket) -> Bool { lhs === rhs }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}
