/// The byte classes of RFC 9110 and 9112 that both HTTP parsers (requests and responses) test
/// with; no I/O, so the fuzzers build with them.

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

@inline(__always)
func hexValue(_ byte: UInt8) -> Int? {
  switch byte {
  case 0x30...0x39: Int(byte - 0x30)
  case 0x41...0x46: Int(byte - 0x41 + 10)
  case 0x61...0x66: Int(byte - 0x61 + 10)
  default: nil
  }
}

/// `tchar` of RFC 9110 section 5.6.2.
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
  switch byte {
  case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
  case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E:
    true
  default: false
  }
}

/// A byte allowed in a field value: SP, HTAB, VCHAR and obs-text; never CR, LF, NUL or DEL.
@inline(__always)
func isFieldValueByte(_ byte: UInt8) -> Bool {
  byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
}
