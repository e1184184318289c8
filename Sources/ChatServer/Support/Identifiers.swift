/// The id formats of API.md, and which strings are malformed (a 400) rather than unknown (a 404).
enum Identifiers {
  /// User and device ids: 1–64 characters of `[a-z0-9._-]`.
  static func isValidUserID(_ id: String) -> Bool {
    let utf8 = id.utf8
    guard (1...64).contains(utf8.count) else { return false }
    return utf8.allSatisfy { byte in
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
  }

  /// Device ids follow the user id rule.
  static func isValidDeviceID(_ id: String) -> Bool { isValidUserID(id) }

  /// The lowercase form of a UUID written `8-4-4-4-12` in hexadecimal (any version, either
  /// case), or nil when `text` is not one. Conversation ids and client message ids are UUIDs.
  static func canonicalUUID(_ text: String) -> String? {
    let utf8 = Array(text.utf8)
    guard utf8.count == 36 else { return nil }
    var lowered: [UInt8] = []
    lowered.reserveCapacity(36)
    for (index, byte) in utf8.enumerated() {
      switch index {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return nil }
        lowered.append(byte)
      default:
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
          lowered.append(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "F"):
          lowered.append(byte + 32)
        default:
          return nil
        }
      }
    }
    return String(decoding: lowered, as: UTF8.self)
  }
}
