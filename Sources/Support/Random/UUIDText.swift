/// UUIDs as text: the `8-4-4-4-12` hexadecimal form.
public enum UUIDText {
  /// The lowercase form of a UUID in its 8-4-4-4-12 hex form (any version, either case), or nil
  /// when `text` is not one. Checked byte by byte (no `Foundation.UUID` round trip): every
  /// message row read from a database and every id in a request comes through here.
  public static func canonical(_ text: String) -> String? {
    var text = text
    guard let hasUppercase = text.withUTF8(check) else { return nil }
    return hasUppercase ? text.lowercased() : text
  }

  /// Nil unless `utf8` is a UUID's text; else whether it has uppercase digits. (A loop over the
  /// contiguous bytes: iterating `String.UTF8View` showed in B2's profile.)
  private static func check(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool? {
    guard utf8.count == 36 else { return nil }
    var hasUppercase = false
    var index = 0
    for byte in utf8 {
      let isDash = index == 8 || index == 13 || index == 18 || index == 23
      switch byte {
      case UInt8(ascii: "-"):
        guard isDash else { return nil }
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
        guard !isDash else { return nil }
      case UInt8(ascii: "A")...UInt8(ascii: "F"):
        guard !isDash else { return nil }
        hasUppercase = true
      default:
        return nil
      }
      index += 1
    }
    return hasUppercase
  }
}
