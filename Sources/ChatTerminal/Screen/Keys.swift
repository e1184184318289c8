/// A key press, decoded from the bytes a terminal sends.
public enum Key: Equatable, Sendable {
  case character(Character)
  case enter
  case backspace
  case escape
  case tab
  case up, down, left, right
  case pageUp, pageDown
  case control(Character)
}

/// Turns raw terminal bytes into keys. Keeps an incomplete UTF-8 character or escape sequence
/// for the next bytes.
public struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  public init() {}

  public mutating func decode(_ bytes: [UInt8]) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    while !pending.isEmpty {
      guard let (key, used) = Self.next(pending) else { break }
      keys.append(key)
      pending.removeFirst(used)
    }
    return keys
  }

  /// A lone escape is only known to be one when no more bytes follow: call this when input
  /// paused.
  public mutating func flush() -> [Key] {
    defer { pending.removeAll() }
    return pending == [0x1B] ? [.escape] : []
  }

  private static func next(_ bytes: [UInt8]) -> (Key, Int)? {
    let first = bytes[0]
    switch first {
    case 0x0D, 0x0A: return (.enter, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x09: return (.tab, 1)
    case 0x1B:
      guard bytes.count >= 2 else { return nil }
      guard bytes[1] == 0x5B || bytes[1] == 0x4F else { return (.escape, 1) }
      guard bytes.count >= 3 else { return nil }
      switch bytes[2] {
      case 0x41: return (.up, 3)
      case 0x42: return (.down, 3)
      case 0x43: return (.right, 3)
      case 0x44: return (.left, 3)
      case 0x35, 0x36:
        guard bytes.count >= 4 else { return nil }
        return (bytes[2] == 0x35 ? .pageUp : .pageDown, 4)
      default:
        // An unknown sequence: skip to its final byte.
        var end = 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        return (.escape, end + 1)
      }
    case 0x01...0x1A:
      return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
    default:
      let length: Int
      switch first {
      case 0xC0...0xDF: length = 2
      case 0xE0...0xEF: length = 3
      case 0xF0...0xF7: length = 4
      case 0x80...0xBF, 0xF8...0xFF: return (.character("\u{FFFD}"), 1)
      default: length = 1
      }
      guard bytes.count >= length else { return nil }
      let text = String(decoding: bytes[0..<length], as: UTF8.self)
      return (.character(text.first ?? "\u{FFFD}"), length)
    }
  }
}
