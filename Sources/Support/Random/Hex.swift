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

  /// The bytes of an even number of hexadecimal digits (either case); nil for anything else.
  public static func decode(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
      guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func value(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
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
