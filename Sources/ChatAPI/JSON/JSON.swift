/// A JSON value: what every body and live frame of API.md is parsed into and written from, on
/// both sides (`APICoding` bridges it to the `Codable` shapes).
///
/// Its own type rather than Foundation's coders for three reasons the API needs: objects keep
/// their members in the order written (responses come out byte-for-byte the same every run,
/// fields in API.md's order); a field of the wrong type is visible as such, so the handler can
/// apply API.md's precedence (a text over the limit is a 413 even when another field is
/// missing); and strings keep their exact UTF-8 bytes (no normalisation anywhere).
public enum JSON: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number written without fraction or exponent that fits in `Int`.
  case integer(Int)
  /// Any other number (a fraction, an exponent, or an integer too large for `Int`).
  case number(Double)
  case string(String)
  case array([JSON])
  case object(JSONObject)

  /// An object from members in the order given.
  public static func object(_ members: KeyValuePairs<String, JSON>) -> JSON {
    .object(JSONObject(members: members.map { ($0.key, $0.value) }))
  }

  /// `.string` or `.null`.
  public static func string(_ value: String?) -> JSON {
    value.map(JSON.string) ?? .null
  }
}

/// A JSON object: members in order, keys unique (the parser refuses duplicates).
public struct JSONObject: Sendable, Equatable {
  public var members: [(key: String, value: JSON)]

  public init(members: [(key: String, value: JSON)] = []) {
    self.members = members
  }

  public subscript(key: String) -> JSON? {
    members.first { $0.key == key }?.value
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
  }
}
