extension RandomNumberGenerator {
  /// `count` random bytes, eight from each `next()`, so a seeded generator gives the same bytes
  /// on every platform.
  mutating func bytes(count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 7)
    while bytes.count < count {
      var word = next()
      for _ in 0..<8 {
        bytes.append(UInt8(truncatingIfNeeded: word))
        word >>= 8
      }
    }
    return Array(bytes.prefix(count))
  }

  /// A random (version 4) UUID in lowercase: the shape of conversation and server message ids.
  mutating func uuidString() -> String {
    var bytes = bytes(count: 16)
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    var utf8: [UInt8] = []
    utf8.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { utf8.append(UInt8(ascii: "-")) }
      utf8.append(Hex.digits[Int(byte >> 4)])
      utf8.append(Hex.digits[Int(byte & 0x0F)])
    }
    return String(decoding: utf8, as: UTF8.self)
  }
}

/// Lowercase hexadecimal.
enum Hex {
  static let digits = Array("0123456789abcdef".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var utf8: [UInt8] = []
    utf8.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      utf8.append(digits[Int(byte >> 4)])
      utf8.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: utf8, as: UTF8.self)
  }
}
