extension JSON {
  /// The compact UTF-8 encoding: no spaces, members in order, strings escaped only where
  /// JSON requires (`"`, `\` and control characters), everything else as raw UTF-8.
  public var utf8Bytes: [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(128)
    write(into: &output)
    return output
  }

  /// The compact encoding as a `String`: one live event frame.
  public var text: String { String(decoding: utf8Bytes, as: UTF8.self) }

  public func write(into output: inout [UInt8]) {
    switch self {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
    case .integer(let value): output.append(contentsOf: String(value).utf8)
    case .number(let value):
      output.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
    case .string(let value): Self.writeString(value, into: &output)
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (offset, element) in elements.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        element.write(into: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      output.append(UInt8(ascii: "{"))
      for (offset, member) in object.members.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        Self.writeString(member.key, into: &output)
        output.append(UInt8(ascii: ":"))
        member.value.write(into: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  private static func writeString(_ string: String, into output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    let utf8 = string.utf8
    if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    {
      output.append(contentsOf: utf8)
      output.append(UInt8(ascii: "\""))
      return
    }
    for byte in utf8 {
      switch byte {
      case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
      case 0x0A: output.append(contentsOf: #"\n"#.utf8)
      case 0x0D: output.append(contentsOf: #"\r"#.utf8)
      case 0x09: output.append(contentsOf: #"\t"#.utf8)
      case 0..<0x20:
        output.append(contentsOf: #"\u00"#.utf8)
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
