/// The request line and header fields of one request, with what the parser concluded from them.
public struct HTTPRequestHead: Sendable {
  /// How the body of a request is delimited (RFC 9112 section 6.3).
  public enum BodyFraming: Sendable, Hashable {
    /// No body.
    case none
    /// Exactly this many bytes (`Content-Length`).
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
  }

  public var method: HTTPMethod
  /// The request target as sent: an origin form (`/path?query`), an absolute form or `*`.
  public var target: String
  /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1 (and later 1.x).
  public var minorVersion: Int
  public var headers: HTTPHeaders
  /// Whether the connection stays open after the response: HTTP/1.1 unless `Connection: close`,
  /// HTTP/1.0 only with `Connection: keep-alive`.
  public var keepAlive: Bool
  /// Whether the client waits for `100 Continue` before sending the body.
  public var expectsContinue: Bool
  public var framing: BodyFraming

  /// Whether the request asks to switch to the WebSocket protocol.
  public var isWebSocketUpgrade: Bool {
    method == .get && headers.containsToken("websocket", in: "Upgrade")
      && headers.containsToken("upgrade", in: "Connection")
  }
}

extension HTTPRequestHead: HTTPDecodableHead {
  public typealias Event = HTTPRequestEvent
  /// A server's limits: a 32 KiB header section, a 64 KiB body.
  public static let defaultLimits = HTTPRequestParser.Limits(
    headerSection: 32 << 10, body: 64 << 10)
}
