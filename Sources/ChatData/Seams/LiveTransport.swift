import ChatAPI

/// The seam to the one WebSocket (`GET /v1/live`). Live: `Wire`'s WebSocket client.
public protocol LiveTransport: Sendable {
  /// Opens the socket with these upgrade headers (the bearer token among them).
  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket
}

/// An open socket.
public protocol LiveSocket: Sendable {
  /// Incoming text frames, in order. Finishes when the socket closes or is found dead.
  var messages: AsyncStream<String> { get }
  /// Sends one text frame; fails when the socket is gone.
  func send(_ text: String) async throws
  func close() async
}

/// Why the socket did not open.
public enum LiveConnectError: Error, Equatable, Sendable {
  /// The server answered the upgrade with this HTTP status (401: refresh the token).
  case rejected(status: Int)
  case offline(String)
  case timeout
}
