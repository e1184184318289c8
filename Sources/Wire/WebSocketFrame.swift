/// WebSocket frame opcodes (RFC 6455 section 5.2).
public enum WebSocketOpcode: UInt8, Sendable {
  case continuation = 0x0
  case text = 0x1
  case binary = 0x2
  case close = 0x8
  case ping = 0x9
  case pong = 0xA

  /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between fragments.
  public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Which end of the connection a codec speaks for: clients mask every frame they send and
/// servers never do (RFC 6455 section 5.1).
public enum WebSocketRole: Sendable, Hashable {
  case client
  case server
}

/// Writes WebSocket frames.
public enum WebSocketFrame {
  /// The bytes of one frame carrying `payload`, masked with `maskingKey` when one is given
  /// (clients must give a fresh random key for every frame).
  public static func encode(
    opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
    maskingKey: UInt32? = nil
  ) -> [UInt8] {
    let length = payload.count
    var frame: [UInt8] = []
    frame.reserveCapacity(length + 14)
    frame.append((fin ? 0x80 : 0) | opcode.rawValue)
    let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
    if length < 126 {
      frame.append(maskBit | UInt8(length))
    } else if length <= 0xFFFF {
      frame.append(maskBit | 126)
      frame.append(UInt8(length >> 8))
      frame.append(UInt8(length & 0xFF))
    } else {
      frame.append(maskBit | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        frame.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF))
      }
    }
    guard let maskingKey else {
      frame.append(contentsOf: payload)
      return frame
    }
    let key: [UInt8] = [
      UInt8(maskingKey >> 24), UInt8((maskingKey >> 16) & 0xFF),
      UInt8((maskingKey >> 8) & 0xFF), UInt8(maskingKey & 0xFF),
    ]
    frame.append(contentsOf: key)
    var index = 0
    for byte in payload {
      frame.append(byte ^ key[index & 3])
      index += 1
    }
    return frame
  }

  /// The payload of a close frame: the code, then the reason cut to fit in 125 bytes on a
  /// character boundary.
  public static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
    var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
    var reasonBytes = 0
    for scalar in reason.unicodeScalars {
      let size = String(scalar).utf8.count
      if reasonBytes + size > 123 { break }
      payload.append(contentsOf: String(scalar).utf8)
      reasonBytes += size
    }
    return payload
  }
}
