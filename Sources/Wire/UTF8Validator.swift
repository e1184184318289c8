/// An incremental UTF-8 validator (Unicode table 3-7, well-formed byte sequences).
///
/// Bytes may arrive in any number of pieces: a sequence split across WebSocket frames is
/// checked as one. It fails at the first byte that cannot start or continue a well-formed
/// sequence, so an invalid message is refused before the rest of it arrives.
public struct UTF8Validator: Sendable, Hashable {
  private var pending = 0
  private var lower: UInt8 = 0x80
  private var upper: UInt8 = 0xBF

  public init() {}

  /// Whether the bytes so far end on a character boundary.
  public var isComplete: Bool { pending == 0 }

  /// Checks the next bytes; false as soon as one is invalid.
  public mutating func validate(_ bytes: some Sequence<UInt8>) -> Bool {
    for byte in bytes where !consume(byte) { return false }
    return true
  }

  @inline(__always)
  public mutating func consume(_ byte: UInt8) -> Bool {
    if pending == 0 {
      switch byte {
      case 0x00...0x7F: return true
      case 0xC2...0xDF: expect(1, 0x80, 0xBF)
      case 0xE0: expect(2, 0xA0, 0xBF)
      case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
      case 0xED: expect(2, 0x80, 0x9F)
      case 0xF0: expect(3, 0x90, 0xBF)
      case 0xF1...0xF3: expect(3, 0x80, 0xBF)
      case 0xF4: expect(3, 0x80, 0x8F)
      default: return false
      }
      return true
    }
    guard byte >= lower && byte <= upper else { return false }
    pending -= 1
    lower = 0x80
    upper = 0xBF
    return true
  }

  @inline(__always)
  private mutating func expect(_ count: Int, _ low: UInt8, _ high: UInt8) {
    pending = count
    lower = low
    upper = high
  }
}
