/// Base64url without padding (RFC 4648 section 5): the alphabet of tokens.
enum Base64URL {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
    return table
  }()

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 4 + 2) / 3)
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      var word: UInt32 = 0
      for (offset, byte) in chunk.enumerated() { word |= UInt32(byte) << (16 - 8 * offset) }
      for position in 0...chunk.count {
        output.append(alphabet[Int((word >> (18 - 6 * position)) & 0x3F)])
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Nil for a character outside the alphabet, padding, an impossible length, or unused bits
  /// that are not zero (so each byte string has exactly one accepted spelling).
  static func decode(_ text: String) -> [UInt8]? {
    decode(utf8: Array(text.utf8))
  }

  static func decode(utf8 input: [UInt8]) -> [UInt8]? {
    guard input.count % 4 != 1 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(input.count * 3 / 4)
    var index = 0
    while index < input.count {
      let chunk = input[index..<min(index + 4, input.count)]
      var word: UInt32 = 0
      for (offset, character) in chunk.enumerated() {
        let value = values[Int(character)]
        guard value != 0xFF else { return nil }
        word |= UInt32(value) << (18 - 6 * offset)
      }
      for position in 0..<(chunk.count - 1) {
        output.append(UInt8(truncatingIfNeeded: word >> (16 - 8 * position)))
      }
      index += 4
    }
    return encode(output).utf8.elementsEqual(input) ? output : nil
  }
}
