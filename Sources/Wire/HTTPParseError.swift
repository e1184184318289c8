/// Why the request parser refused a request. The server answers with `status` and the JSON
/// error body of API.md (`{ "error": { "code", "message" } }`), then closes the connection:
/// after a framing error no later byte on that connection can be trusted to start a request.
public struct HTTPParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The status the server answers with.
  public let status: HTTPStatus
  /// The snake_case error code of the JSON body.
  public let code: String
  /// What was wrong, for a human; never contains request bytes.
  public let message: String

  init(_ status: HTTPStatus, _ code: String, _ message: String) {
    self.status = status
    self.code = code
    self.message = message
  }

  static func badRequest(_ message: String) -> HTTPParseError {
    HTTPParseError(.badRequest, "bad_request", message)
  }

  static let requestLineTooLong = HTTPParseError(
    .uriTooLong, "uri_too_long", "The request line is longer than the limit.")
  static let headerTooLarge = HTTPParseError(
    .requestHeaderFieldsTooLarge, "headers_too_large", "A header field is longer than the limit.")
  static let headersTooLarge = HTTPParseError(
    .requestHeaderFieldsTooLarge, "headers_too_large",
    "The header section is larger than the limit.")
  static let tooManyHeaders = HTTPParseError(
    .requestHeaderFieldsTooLarge, "headers_too_large",
    "There are more header fields than the limit.")
  static let bodyTooLarge = HTTPParseError(
    .payloadTooLarge, "too_large", "The body is larger than the limit.")
  static let versionNotSupported = HTTPParseError(
    .httpVersionNotSupported, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are served.")
  static let unsupportedTransferCoding = HTTPParseError(
    .notImplemented, "not_implemented", "Only the chunked transfer coding is supported.")
  static let unsupportedExpectation = HTTPParseError(
    .expectationFailed, "expectation_failed", "Only the 100-continue expectation is supported.")

  public var description: String { "\(status.code) \(code): \(message)" }
}
