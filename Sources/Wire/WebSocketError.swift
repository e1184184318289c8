/// Why a WebSocket operation failed.
public enum WebSocketError: Error, Hashable, Sendable {
  /// The socket is closing or closed: open a new one.
  case closed
  /// More is waiting to be sent than ``WebSocketConfiguration/maxBufferedBytes``: the peer
  /// does not read. The socket is being dropped; open a new one later.
  case bufferFull
}
