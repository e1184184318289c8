/// Lowercase hexadecimal.
public enum Hex {
  static let digits = Array("0123456789abcdef".utf8)

  public static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var utf8: [UInt8] = []
    utf8.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
      utf8.append(digits[Int(byte >> 4)])
      utf8.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: utf8, as: UTF8.self)
  }

  /// Sixteen bytes written as a UUID: `8-4-4-4-12` lowercase hexadecimal digits.
  public static func uuid(_ bytes: [UInt8]) -> String {
    precondition(bytes.count == 16, "a UUID has 16 bytes")
    var utf8: [UInt8] = []
    utf8.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { utf8.append(UInt8(ascii: "-")) }
      utf8.append(digits[Int(byte >> 4)])
      utf8.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: utf8, as: UTF8.self)
  }
}
