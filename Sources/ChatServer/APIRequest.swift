/// One HTTP request, as plain values: what the network layer hands the service.
public struct APIRequest: Sendable {
  /// `GET`, `POST`, … (upper case).
  public var method: String
  /// The path without the query string, e.g. `/v1/conversations/{id}/messages`; not
  /// percent-decoded (no valid id needs escaping, so an escaped one is simply malformed).
  public var path: String
  /// The decoded query parameters.
  public var query: [String: String]
  /// Header names in lower case.
  public var headers: [String: String]
  public var body: [UInt8]

  public init(
    method: String, path: String, query: [String: String] = [:],
    headers: [String: String] = [:], body: [UInt8] = []
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }
}

/// One HTTP response, as plain values.
public struct APIResponse: Sendable {
  public var status: Int
  /// In order; names in their usual spelling (`Content-Type`).
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The first header called `name`, compared without regard to case.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  static let jsonContentType = "application/json; charset=utf-8"

  static func json(_ status: Int, _ value: JSON) -> APIResponse {
    APIResponse(
      status: status, headers: [("Content-Type", jsonContentType)], body: value.utf8Bytes)
  }

  static func text(_ status: Int, _ text: String, contentType: String) -> APIResponse {
    APIResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
  }

  static let noContent = APIResponse(status: 204)
}
