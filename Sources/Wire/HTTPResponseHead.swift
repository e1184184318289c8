/// The status line and header fields of one response, with what the parser concluded from them.
public struct HTTPResponseHead: Sendable {
  /// How the body of a response is delimited (RFC 9112 section 6.3).
  public enum BodyFraming: Sendable, Hashable {
    /// No body: the answer to a HEAD, a 1xx, 204 or 304.
    case none
    /// Exactly this many bytes (`Content-Length`).
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Neither: the body ends when the server closes the connection. A FIN inside such a body
    /// cannot be told from its end (a reset can), so the connection is never reused after it.
    case untilClose
  }

  /// The status code and the reason phrase as sent.
  public var status: HTTPStatus
  /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
  public var minorVersion: Int
  public var headers: HTTPHeaders
  /// Whether the connection may carry another request after this response: HTTP/1.1 unless
  /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`, and never after a body
  /// that ends with the connection.
  public var keepAlive: Bool
  public var framing: BodyFraming
}

extension HTTPResponseHead: HTTPDecodableHead {
  public typealias Event = HTTPResponseEvent
  /// A client's limits: a 64 KiB header section, a 16 MiB body.
  public static let defaultLimits = HTTPResponseParser.Limits(
    headerSection: 64 << 10, body: 16 << 20)
}
