extension RandomNumberGenerator {
  /// `count` random bytes, eight from each `next()`, so a seeded generator gives the same bytes
  /// on every platform.
  public mutating func bytes(count: Int) -> [UInt8] {
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

  /// A random (version 4) UUID in lowercase.
  public mutating func uuidString() -> String {
    var bytes = bytes(count: 16)
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return Hex.uuid(bytes)
  }
}
