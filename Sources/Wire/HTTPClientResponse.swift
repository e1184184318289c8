/// A complete response from ``HTTPClient``: the body is fully read (and de-chunked).
public struct HTTPClientResponse: Sendable {
  public var status: HTTPStatus
  /// The header fields as received (trailers are not kept).
  public var headers: HTTPHeaders
  public var body: [UInt8]

  public init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The body as UTF-8 text (invalid bytes become U+FFFD).
  public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
