import ChatAPI

/// Why a request got no HTTP response. Each case is temporary for the outbox.
public enum TransportError: Error, Equatable, Sendable {
  /// Nothing of the request reached the server (no network, no route, refused, DNS): it
  /// certainly did not act on it. The outbox relies on this to change an unsent message in
  /// place; when unsure, say `offline`.
  case unreachable(String)
  /// The server could not be reached (no route, refused, DNS), or the connection was cut
  /// before the reply was complete.
  case offline(String)
  /// No reply in time. The server may have acted on the request: only idempotent requests
  /// (and sends, thanks to the client message ID) are retried.
  case timeout
  /// The server was reached but TLS failed for a reason that needs fixing, not waiting (its
  /// certificate did not verify, no common protocol version, a plaintext server): the reason
  /// says what. The engine still treats it as temporary (a certificate may be renewed).
  case tlsFailed(String)
}

/// The seam to the network for requests and replies: one `APIRequest` (a path relative to the
/// server's base URL) in, one `APIResponse` out. Live: `URLSessionTransport` on Apple
/// platforms, `ChatTransports.WireHTTPTransport` on Linux.
public protocol HTTPTransport: Sendable {
  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse
}
