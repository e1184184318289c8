/// Why a body is not JSON. The handler answers every case with a 400.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
  public var offset: Int
  public var reason: String

  public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Strict where a lenient parser would hide a client bug: no trailing commas, no comments, no
/// duplicate keys, no lone surrogates, no control characters inside strings, invalid UTF-8
/// refused, at most 64 levels of nesting.
public struct JSONParser {
  public static let maximumDepth = 64

  private let bytes: [UInt8]
  private var index = 0
  private var depth = 0

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Parses one JSON text; anything but whitespace after the value is an error.
  public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
    var parser = JSONParser(bytes: bytes)
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    guard parser.index == bytes.count else { throw parser.error("unexpected data after the value") }
    return value
  }

  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
    try parse(Array(text.utf8))
  }

  private func error(_ reason: String) -> JSONSyntaxError {
    JSONSyntaxError(offset: index, reason: reason)
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while let byte = current,
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\t")
    {
      index += 1
    }
  }

  private mutating func expect(_ literal: String) throws(JSONSyntaxError) {
    for byte in literal.utf8 {
      guard current == byte else { throw error("expected \(literal)") }
      index += 1
    }
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSON {
    guard let byte = current else { throw error("unexpected end") }
    switch byte {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try parseNumber()
    default:
      throw error("unexpected character")
    }
  }

  private mutating func enterContainer() throws(JSONSyntaxError) {
    depth += 1
    guard depth <= Self.maximumDepth else { throw error("nested too deeply") }
    index += 1
    skipWhitespace()
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSON {
    try enterContainer()
    defer { depth -= 1 }
    var object = JSONObject()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(object)
    }
    var keys: Set<String> = []
    while true {
      guard current == UInt8(ascii: "\"") else { throw error("expected a key") }
      let key = try parseString()
      guard keys.insert(key).inserted else { throw error("duplicate key") }
      skipWhitespace()
      try expect(":")
      skipWhitespace()
      object.members.append((key, try parseValue()))
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "}"):
        index += 1
        return .object(object)
      default:
        throw error("expected , or }")
      }
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSON {
    try enterContainer()
    defer { depth -= 1 }
    var elements: [JSON] = []
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      elements.append(try parseValue())
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default:
        throw error("expected , or ]")
      }
    }
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    index += 1  // the opening quote
    var utf8: [UInt8] = []
    while true {
      guard let byte = current else { throw error("unterminated string") }
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard let string = Self.validUTF8(utf8) else {
          throw error("invalid UTF-8")
        }
        return string
      case UInt8(ascii: "\\"):
        try parseEscape(into: &utf8)
      case 0..<0x20:
        throw error("control character in a string")
      default:
        utf8.append(byte)
      }
    }
  }

  /// The string these bytes spell, or nil when they are not valid UTF-8.
  private static func validUTF8(_ bytes: [UInt8]) -> String? {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      return String(validating: bytes, as: UTF8.self)
    }
    // Decoding replaces every invalid sequence with U+FFFD, so valid bytes are exactly those
    // that come back unchanged.
    let decoded = String(decoding: bytes, as: UTF8.self)
    return decoded.utf8.elementsEqual(bytes) ? decoded : nil
  }

  private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
    guard let byte = current else { throw error("unterminated escape") }
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
    case UInt8(ascii: "b"): utf8.append(0x08)
    case UInt8(ascii: "f"): utf8.append(0x0C)
    case UInt8(ascii: "n"): utf8.append(0x0A)
    case UInt8(ascii: "r"): utf8.append(0x0D)
    case UInt8(ascii: "t"): utf8.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try parseHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        try expect("\\u")
        let low = try parseHex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw error("lone high surrogate") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw error("lone low surrogate")
      }
      guard let unicodeScalar = Unicode.Scalar(scalar) else { throw error("invalid scalar") }
      utf8.append(contentsOf: Array(String(Character(unicodeScalar)).utf8))
    default:
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = current else { throw error("short \\u escape") }
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> JSON {
    let start = index
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw error("expected a digit")
    }
    if first == UInt8(ascii: "0") {
      index += 1
    } else {
      skipDigits()
    }
    var isInteger = true
    if current == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard try skipAtLeastOneDigit() else { throw error("expected a digit after .") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard try skipAtLeastOneDigit() else { throw error("expected a digit in the exponent") }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let integer = Int(text) { return .integer(integer) }
    guard let double = Double(text) else { throw error("invalid number") }
    return .number(double)
  }

  private mutating func skipDigits() {
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
      index += 1
    }
  }

  private mutating func skipAtLeastOneDigit() throws(JSONSyntaxError) -> Bool {
    let start = index
    skipDigits()
    return index > start
  }
}
