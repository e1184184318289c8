/// Why the response parser refused a response. After any of them the connection cannot be
/// trusted to frame another response: the client closes it.
public struct HTTPResponseParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of problem it is.
  public enum Kind: Hashable, Sendable {
    /// The bytes break RFC 9112 (a status line, a header, a chunk, the framing).
    case malformed
    /// A part of the response is over the parser's ``HTTPResponseParser/Limits``.
    case tooLarge
    /// The connection ended before the response was complete.
    case truncated
  }

  public let kind: Kind
  /// What was wrong, for a human; never contains response bytes.
  public let message: String

  init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  static func malformed(_ message: String) -> HTTPResponseParseError {
    HTTPResponseParseError(.malformed, message)
  }

  static func tooLarge(_ message: String) -> HTTPResponseParseError {
    HTTPResponseParseError(.tooLarge, message)
  }

  static let truncated = HTTPResponseParseError(
    .truncated, "the connection closed before the response was complete")

  public var description: String { message }
}
