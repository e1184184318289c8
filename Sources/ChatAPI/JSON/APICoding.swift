/// The one encoding of API.md's shapes, used by the client, the server, the simulation and the
/// tests: `Codable` shapes ↔ `JSON` ↔ compact UTF-8.
///
/// Fields come out in the order each shape's `encode(to:)` writes them (its `CodingKeys`
/// order), strings keep their exact bytes, and reading is strict about syntax (`JSONParser`:
/// no duplicate keys, no lone surrogates, valid UTF-8) and about types (`JSONShapeError`).
public enum APICoding {
  /// The compact UTF-8 bytes of `value`.
  public static func encode(_ value: some Encodable) -> [UInt8] {
    json(value).utf8Bytes
  }

  /// `value` as `JSON`.
  public static func json(_ value: some Encodable) -> JSON {
    do {
      return try JSONValueEncoder.encode(value)
    } catch {
      // API shapes never throw while encoding: only a shape with a throwing `encode(to:)`
      // could get here, and there is none.
      preconditionFailure("an API shape failed to encode: \(error)")
    }
  }

  /// Reads a `T` from a body or a frame; throws `JSONSyntaxError` when it is not JSON and
  /// `JSONShapeError` (or a `DecodingError` from a shape's own checks) when it is not a `T`.
  public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try decode(type, from: try JSONParser.parse(bytes))
  }

  public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    try decode(type, from: Array(text.utf8))
  }

  public static func decode<T: Decodable>(_ type: T.Type, from json: JSON) throws -> T {
    try JSONValueDecoder.decode(type, from: json)
  }

  /// What was wrong with a body, in API.md's words, for a 400.
  public static func problem(_ error: any Error) -> String {
    switch error {
    case let error as JSONShapeError: error.description
    case is JSONSyntaxError: "The body must be JSON."
    case DecodingError.dataCorrupted(let context):
      "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has a value this server does not know."
    default: "The body does not have the expected fields."
    }
  }
}
