import ChatAPI

/// A request body read as a JSON object, then as one of API.md's shapes: a body that is not a
/// JSON object, or a field that is missing or of the wrong type, is a 400.
///
/// The object stays readable field by field before it is read as a shape, so a handler can
/// apply API.md's precedence (a text over the limit is a 413 even when another field is
/// missing).
struct RequestBody {
  let object: JSONObject

  /// Parses `bytes`; 400 when they are not a JSON object. (The size limit is checked before.)
  init(_ bytes: [UInt8]) throws(ServiceError) {
    guard case .object(let object) = try? JSONParser.parse(bytes) else {
      throw .badRequest("The body must be a JSON object.")
    }
    self.object = object
  }

  subscript(key: String) -> JSON? { object[key] }

  /// 413 when the field `text` holds more than API.md's 4,096 Unicode scalars: checked before
  /// the body is read as a shape (API.md ranks 413 before 400). `what` names what holds it.
  func refuseLongText(in what: String) throws(ServiceError) {
    if case .string(let text)? = object["text"],
      text.unicodeScalars.count > APILimits.maxTextScalars
    {
      throw .tooLarge("\(what) holds at most \(APILimits.maxTextScalars) Unicode scalars.")
    }
  }

  /// The body as `T`; a 400 naming the field when it does not fit.
  func decode<T: Decodable>(_ type: T.Type) throws(ServiceError) -> T {
    do {
      return try APICoding.decode(type, from: .object(object))
    } catch {
      throw .badRequest(APICoding.problem(error))
    }
  }
}

/// Query parameters in API.md's terms.
enum QueryParameters {
  /// The integer `name`, nil when absent; a 400 when it is not a decimal integer (`abc`, `1.5`,
  /// empty).
  ///
  /// A number is a number, however many digits it has: one that does not fit 64 bits, of
  /// either sign, reads as `Int.min`, below every range of API.md (they all start at 0 or 1),
  /// so the range check that follows answers 422 (API.md: 400 for a value that is not a
  /// number, 422 for a number out of range), after the checks API.md ranks before it (a
  /// conversation the caller is not in is still 404).
  static func integer(_ name: String, in query: QueryItems) throws(ServiceError) -> Int? {
    guard let text = query[name] else { return nil }
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      throw .badRequest("\(name) must be an integer.")
    }
    return Int(text) ?? Int.min
  }
}
