import Foundation

extension HTTPResponse {
  /// `value` encoded as JSON with `Content-Type: application/json; charset=utf-8`; a value that
  /// cannot be encoded gives a 500 with the `internal` error code.
  public static func json(
    _ value: some Encodable, status: HTTPStatus = .ok, encoder: JSONEncoder = JSONEncoder()
  ) -> HTTPResponse {
    do {
      let data = try encoder.encode(value)
      return HTTPResponse(
        status: status, headers: ["Content-Type": "application/json; charset=utf-8"],
        body: Array(data))
    } catch {
      return .error(
        .internalServerError, code: "internal", message: "The response could not be encoded.")
    }
  }
}

extension HTTPRequest {
  /// The body decoded as JSON. Throws `DecodingError` when it is not JSON of that shape (the
  /// caller answers 400 `bad_request`).
  public func decodeJSON<Value: Decodable>(
    _ type: Value.Type, decoder: JSONDecoder = JSONDecoder()
  ) throws -> Value {
    try decoder.decode(type, from: Data(body))
  }
}
