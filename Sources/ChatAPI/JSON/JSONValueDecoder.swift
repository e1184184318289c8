/// A shape could not be read from `JSON`: a field missing or of the wrong type.
///
/// `description` says it in API.md's terms (`clientMessageId must be a string.`), which is what
/// the server answers with its 400.
public struct JSONShapeError: Error, Equatable, CustomStringConvertible {
  /// The field, as a dotted path (`message.sequence`, `memberIds[2]`); empty for the top level.
  public var path: String
  /// What the field must be: `a string`, `an integer`, `an object`, …
  public var expected: String

  public var description: String {
    if let bracket = path.lastIndex(of: "["), path.hasSuffix("]") {
      return "\(path[..<bracket]) must hold only \(Self.plural(expected))."
    }
    return "\(path.isEmpty ? "the body" : path) must be \(expected)."
  }

  private static func plural(_ expected: String) -> String {
    let noun = expected.split(separator: " ", maxSplits: 1).last.map(String.init) ?? expected
    return noun.hasSuffix("s") ? noun : noun + "s"
  }
}

/// Reads a `Decodable` value from `JSON`.
///
/// Lenient where a newer server may say more (unknown fields are ignored, a missing optional is
/// nil) and strict where a field is wrong (a string where a number belongs is an error, never a
/// guess). Integers follow API.md's rule: a whole number written with a fraction or exponent
/// counts (`2.0`, `1e3`), one too large for `Int` is clamped so the range check that follows
/// refuses it, and a real fraction is a type error.
struct JSONValueDecoder {
  static func decode<T: Decodable>(_ type: T.Type, from json: JSON) throws -> T {
    try T(from: ValueDecoder(json: json, codingPath: []))
  }
}

private func describe(_ codingPath: [any CodingKey]) -> String {
  var text = ""
  for key in codingPath {
    if let index = key.intValue {
      text += "[\(index)]"
    } else {
      text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
    }
  }
  return text
}

private func mismatch(_ codingPath: [any CodingKey], _ expected: String) -> JSONShapeError {
  JSONShapeError(path: describe(codingPath), expected: expected)
}

/// What a type is called in an error.
private func expectation(of type: Any.Type) -> String {
  switch type {
  case is String.Type: "a string"
  case is Bool.Type: "a boolean"
  case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type: "an integer"
  case is Double.Type: "a number"
  case is [JSON].Type: "an array"
  default: "an object"
  }
}

/// Decodes a primitive from `json`; nil when `T` is not a primitive.
private func primitive<T: Decodable>(_ type: T.Type, _ json: JSON, _ path: [any CodingKey]) throws
  -> T?
{
  func integer() throws -> Int {
    switch json {
    case .integer(let value): return value
    case .number(let value) where value.isFinite && value == value.rounded(.towardZero):
      return value >= 0x1p63 ? Int.max : value < -0x1p63 ? Int.min : Int(value)
    default: throw mismatch(path, "an integer")
    }
  }
  switch type {
  case is String.Type:
    guard case .string(let value) = json else { throw mismatch(path, "a string") }
    return value as? T
  case is Bool.Type:
    guard case .bool(let value) = json else { throw mismatch(path, "a boolean") }
    return value as? T
  case is Int.Type:
    return try integer() as? T
  case is Int64.Type:
    return Int64(try integer()) as? T
  case is Int32.Type:
    guard let value = Int32(exactly: try integer()) else { throw mismatch(path, "an integer") }
    return value as? T
  case is UInt64.Type:
    guard let value = UInt64(exactly: try integer()) else { throw mismatch(path, "an integer") }
    return value as? T
  case is Double.Type:
    switch json {
    case .integer(let value): return Double(value) as? T
    case .number(let value): return value as? T
    default: throw mismatch(path, "a number")
    }
  case is JSON.Type:
    return json as? T
  default:
    return nil
  }
}

private func decode<T: Decodable>(_ type: T.Type, from json: JSON, at path: [any CodingKey])
  throws -> T
{
  if let value = try primitive(type, json, path) { return value }
  return try T(from: ValueDecoder(json: json, codingPath: path))
}

private struct ValueDecoder: Decoder {
  let json: JSON
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = json else { throw mismatch(codingPath, "an object") }
    return KeyedDecodingContainer(KeyedDecoder<Key>(object: object, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = json else { throw mismatch(codingPath, "an array") }
    return UnkeyedDecoder(elements: elements, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleDecoder(json: json, codingPath: codingPath)
  }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let object: JSONObject
  let codingPath: [any CodingKey]

  var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

  func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

  private func value(_ key: Key, expecting type: Any.Type) throws -> JSON {
    guard let value = object[key.stringValue] else {
      throw mismatch(codingPath + [key], expectation(of: type))
    }
    return value
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    object[key.stringValue].map { $0 == .null } ?? true
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try ChatAPI.decode(type, from: value(key, expecting: type), at: codingPath + [key])
  }

  /// Missing and `null` are both nil: API.md writes absent values as `null`.
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let value = object[key.stringValue], value != .null else { return nil }
    return try ChatAPI.decode(type, from: value, at: codingPath + [key])
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
    throws -> KeyedDecodingContainer<NestedKey>
  {
    try ValueDecoder(json: value(key, expecting: JSONObject.self), codingPath: codingPath + [key])
      .container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try ValueDecoder(json: value(key, expecting: [JSON].self), codingPath: codingPath + [key])
      .unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    ValueDecoder(json: object["super"] ?? .null, codingPath: codingPath)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    ValueDecoder(json: object[key.stringValue] ?? .null, codingPath: codingPath + [key])
  }
}

/// An array element's place in a coding path.
private struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
  let elements: [JSON]
  let codingPath: [any CodingKey]
  var currentIndex = 0

  init(elements: [JSON], codingPath: [any CodingKey]) {
    self.elements = elements
    self.codingPath = codingPath
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private mutating func next(expecting type: Any.Type) throws -> (JSON, [any CodingKey]) {
    let path = codingPath + [IndexKey(currentIndex)]
    guard !isAtEnd else { throw mismatch(path, expectation(of: type)) }
    defer { currentIndex += 1 }
    return (elements[currentIndex], path)
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, elements[currentIndex] == .null else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (json, path) = try next(expecting: type)
    return try ChatAPI.decode(type, from: json, at: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (json, path) = try next(expecting: JSONObject.self)
    return try ValueDecoder(json: json, codingPath: path).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (json, path) = try next(expecting: [JSON].self)
    return try ValueDecoder(json: json, codingPath: path).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    let (json, path) = try next(expecting: JSON.self)
    return ValueDecoder(json: json, codingPath: path)
  }
}

private struct SingleDecoder: SingleValueDecodingContainer {
  let json: JSON
  let codingPath: [any CodingKey]

  func decodeNil() -> Bool { json == .null }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try ChatAPI.decode(type, from: json, at: codingPath)
  }
}
