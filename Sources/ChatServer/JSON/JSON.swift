/// A JSON value: what request bodies and live frames are parsed into, and what responses and
/// events are written from.
///
/// Written by hand rather than through `Codable` for three reasons the API needs: objects keep
/// their members in the order written (responses come out byte-for-byte the same every run,
/// fields in API.md's order); a field of the wrong type is visible as such, so the handler can
/// apply API.md's precedence (a text over the limit is a 413 even when another field is
/// missing); and strings keep their exact UTF-8 bytes (no normalisation anywhere).
enum JSON: Sendable {
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
  static func object(_ members: KeyValuePairs<String, JSON>) -> JSON {
    .object(JSONObject(members: members.map { ($0.key, $0.value) }))
  }

  /// `.string` or `.null`.
  static func string(_ value: String?) -> JSON {
    value.map(JSON.string) ?? .null
  }
}

/// A JSON object: members in order, keys unique (the parser refuses duplicates).
struct JSONObject: Sendable {
  var members: [(key: String, value: JSON)]

  init(members: [(key: String, value: JSON)] = []) {
    self.members = members
  }

  subscript(key: String) -> JSON? {
    members.first { $0.key == key }?.value
  }
}
