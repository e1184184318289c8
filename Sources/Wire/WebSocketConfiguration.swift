/// Limits and keep-alive of one WebSocket, for either end.
///
/// A dead peer that still looks connected is found within `pingInterval + pingTimeout` (plus
/// the loop's tick, at most 250 ms): after `pingInterval` without a byte from the peer, a ping
/// goes out, and the socket is dropped if nothing arrives within `pingTimeout`.
public struct WebSocketConfiguration: Sendable {
  /// The largest message accepted, summed over fragments; a larger one closes with 1009.
  public var maxMessageSize: Int = 1 << 20
  /// Bytes waiting to be sent; a peer that reads so slowly that more pile up is dropped.
  public var maxBufferedBytes: Int = 4 << 20
  /// Received messages waiting for the consumer of ``WebSocket/messages``; a consumer that
  /// falls further behind closes the socket with 1008 (messages are never dropped silently).
  public var maxQueuedMessages: Int = 4096
  /// Bytes of received messages waiting for the consumer; past it, 1008 as above. With
  /// `maxBufferedBytes`, this bounds a socket's memory whatever the peer and the consumer do.
  public var maxQueuedBytes: Int = 16 << 20
  /// Silence from the peer after which a ping is sent; nil never pings.
  public var pingInterval: Duration? = .seconds(30)
  /// How long to wait for any byte after a ping before dropping the connection.
  public var pingTimeout: Duration = .seconds(10)
  /// How long to wait for the peer's close frame after sending ours.
  public var closeTimeout: Duration = .seconds(5)
  /// How long a write may make no progress before the connection is dropped.
  public var writeTimeout: Duration = .seconds(30)
  /// Receives binary messages, on the socket's event loop (return quickly). When nil, a binary
  /// message closes the socket with 1003: the chat protocol is text only.
  public var binaryMessageHandler: (@Sendable (WebSocket, [UInt8]) -> Void)?

  public init() {}
}
