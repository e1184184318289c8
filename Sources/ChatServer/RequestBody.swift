/// A request body read as a JSON object, with field access in API.md's terms: a field that is
/// missing or of the wrong type is a 400.
struct RequestBody {
  let object: JSONObject

  /// Parses `bytes`; 400 when they are not a JSON object. (The size limit is checked before.)
  init(_ bytes: [UInt8]) throws(APIError) {
    guard case .object(let object) = try? JSONParser.parse(bytes) else {
      throw .badRequest("The body must be a JSON object.")
    }
    self.object = object
  }

  subscript(key: String) -> JSON? { object[key] }

  func string(_ key: String) throws(APIError) -> String {
    guard case .string(let value)? = object[key] else {
      throw .badRequest("\(key) must be a string.")
    }
    return value
  }

  /// Nil when missing or null.
  func optionalString(_ key: String) throws(APIError) -> String? {
    switch object[key] {
    case nil, .null?: return nil
    case .string(let value)?: return value
    default: throw .badRequest("\(key) must be a string.")
    }
  }

  func stringArray(_ key: String) throws(APIError) -> [String] {
    guard case .array(let elements)? = object[key] else {
      throw .badRequest("\(key) must be an array of strings.")
    }
    var strings: [String] = []
    for element in elements {
      guard case .string(let value) = element else {
        throw .badRequest("\(key) must be an array of strings.")
      }
      strings.append(value)
    }
    return strings
  }

  /// An integer. A whole number too large for `Int` (`1e30`) is clamped, so the range check
  /// that follows answers it with a 422 rather than a 400; a fraction is a 400.
  func integer(_ key: String) throws(APIError) -> Int {
    switch object[key] {
    case .integer(let value)?:
      return value
    case .number(let value)? where value.isFinite && value == value.rounded(.towardZero):
      return value >= 0x1p63 ? Int.max : value < -0x1p63 ? Int.min : Int(value)
    default:
      throw .badRequest("\(key) must be an integer.")
    }
  }
}

/// Query parameters in API.md's terms.
enum QueryParameters {
  /// The integer `name`, nil when absent; a 400 when it is not a decimal integer (`abc`, `1.5`,
  /// empty). Too many digits for `Int` clamp, so the range check answers 422.
  static func integer(_ name: String, in query: [String: String]) throws(APIError) -> Int? {
    guard let text = query[name] else { return nil }
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      throw .badRequest("\(name) must be an integer.")
    }
    return Int(text) ?? (text.hasPrefix("-") ? Int.min : Int.max)
  }
}
