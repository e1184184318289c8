/// A pure WebSocket decoder for either end (RFC 6455 sections 5 and 7): bytes in, messages and
/// control frames out, no I/O.
///
/// It enforces what the receiving end must: masking by clients and none by servers, no reserved
/// bits (no extension is ever negotiated), known opcodes, control frames of at most 125 bytes
/// and never fragmented, continuation frames only inside a message, the message size limit
/// (checked on each frame header, so an oversized message is refused before its payload
/// arrives), and UTF-8 in text messages and close reasons, checked as the bytes arrive.
///
/// A ``Event/failure(_:_:)`` tells the close code to fail the connection with; after it, and
/// after ``Event/close(code:reason:)``, the decoder yields nothing more.
public struct WebSocketDecoder: Sendable {
  /// What the decoder found.
  public enum Event: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame; `code` is nil when the frame had no payload.
    case close(code: WebSocketCloseCode?, reason: String)
    /// The peer broke the protocol; fail the connection with this code.
    case failure(WebSocketCloseCode, String)
  }

  private struct Frame {
    var fin: Bool
    var opcode: WebSocketOpcode
    var key: (UInt8, UInt8, UInt8, UInt8)?
    var remaining: Int
    var offset = 0
  }

  /// The end this decoder reads for: a server expects masked frames, a client unmasked ones.
  public let role: WebSocketRole
  /// The largest message accepted, in bytes, summed over its fragments.
  public let maxMessageSize: Int

  private var buffer = ByteBuffer()
  private var frame: Frame?
  private var messageOpcode: WebSocketOpcode?
  private var message: [UInt8] = []
  private var control: [UInt8] = []
  private var utf8 = UTF8Validator()
  private var finished = false

  public init(role: WebSocketRole, maxMessageSize: Int = 1 << 20) {
    self.role = role
    self.maxMessageSize = maxMessageSize
  }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.writeBytes(bytes) }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) { buffer.writeBytes(bytes) }

  /// The next event, or nil when more bytes are needed.
  public mutating func next() -> Event? {
    while !finished {
      if frame == nil {
        switch readHeader() {
        case .none: return nil
        case .some(.failure(let code, let reason)): return fail(code, reason)
        case .some(.success(let header)): frame = header
        }
      }
      guard var current = frame else { return nil }
      let count = min(current.remaining, buffer.readableBytes)
      if current.opcode.isControl {
        // Control payloads are at most 125 bytes: wait for all of them.
        guard count == current.remaining else { return nil }
        var payload: [UInt8] = []
        copyPayload(count, of: &current, into: &payload)
        control = payload
        frame = nil
        return controlEvent(current.opcode)
      }
      var payload = message
      message = []
      let before = payload.count
      copyPayload(count, of: &current, into: &payload)
      message = payload
      if messageOpcode == .text, !utf8.validate(message[before...]) {
        return fail(.invalidFramePayloadData, "A text message is not valid UTF-8.")
      }
      current.remaining -= count
      guard current.remaining == 0 else {
        frame = current
        return nil
      }
      frame = nil
      guard current.fin else { continue }
      let opcode = messageOpcode
      messageOpcode = nil
      let whole = message
      message = []
      if opcode == .text {
        guard utf8.isComplete else {
          return fail(.invalidFramePayloadData, "A text message ends inside a character.")
        }
        utf8 = UTF8Validator()
        return .text(String(decoding: whole, as: UTF8.self))
      }
      return .binary(whole)
    }
    return nil
  }

  private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> Event {
    finished = true
    return .failure(code, reason)
  }

  private enum HeaderResult {
    case success(Frame)
    case failure(WebSocketCloseCode, String)
  }

  /// Reads a frame header once all of it is buffered. The checks that need only the first two
  /// bytes run as soon as those arrive.
  private mutating func readHeader() -> HeaderResult? {
    let available = buffer.readableBytes
    let start = buffer.readerIndex
    guard available >= 2 else { return nil }
    let first = buffer[start]
    let second = buffer[start + 1]
    if first & 0x70 != 0 {
      return .failure(.protocolError, "Reserved bits are set; no extension was negotiated.")
    }
    guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
      return .failure(.protocolError, "Unknown opcode.")
    }
    let fin = first & 0x80 != 0
    let masked = second & 0x80 != 0
    let shortLength = Int(second & 0x7F)
    if opcode.isControl {
      if !fin { return .failure(.protocolError, "A control frame is fragmented.") }
      if shortLength > 125 { return .failure(.protocolError, "A control frame is too long.") }
    } else if opcode == .continuation {
      if messageOpcode == nil {
        return .failure(.protocolError, "A continuation frame without a message.")
      }
    } else if messageOpcode != nil {
      return .failure(.protocolError, "A new message starts inside a fragmented one.")
    }
    switch role {
    case .server where !masked: return .failure(.protocolError, "A client frame is not masked.")
    case .client where masked: return .failure(.protocolError, "A server frame is masked.")
    default: break
    }

    var index = start + 2
    var length = UInt64(shortLength)
    if shortLength == 126 {
      guard available >= 4 else { return nil }
      length = UInt64(buffer[index]) << 8 | UInt64(buffer[index + 1])
      index += 2
    } else if shortLength == 127 {
      guard available >= 10 else { return nil }
      length = 0
      for offset in 0..<8 { length = length << 8 | UInt64(buffer[index + offset]) }
      index += 8
      if length >> 63 != 0 {
        return .failure(.protocolError, "The payload length has its top bit set.")
      }
    }
    if !opcode.isControl && length > UInt64(maxMessageSize - message.count) {
      return .failure(.messageTooBig, "The message is larger than the limit.")
    }
    var key: (UInt8, UInt8, UInt8, UInt8)?
    if masked {
      guard buffer.writerIndex - index >= 4 else { return nil }
      key = (buffer[index], buffer[index + 1], buffer[index + 2], buffer[index + 3])
      index += 4
    }
    buffer.moveReaderIndex(forwardBy: index - start)
    if opcode == .text || opcode == .binary {
      messageOpcode = opcode
    }
    return .success(Frame(fin: fin, opcode: opcode, key: key, remaining: Int(length)))
  }

  private mutating func copyPayload(_ count: Int, of frame: inout Frame, into target: inout [UInt8])
  {
    guard count > 0 else { return }
    guard let key = frame.key else {
      target.append(contentsOf: buffer.readSlice(length: count))
      return
    }
    let keyBytes = [key.0, key.1, key.2, key.3]
    var offset = frame.offset
    target.reserveCapacity(target.count + count)
    buffer.withUnsafeReadableBytes { source in
      for index in 0..<count {
        target.append(source[index] ^ keyBytes[offset & 3])
        offset += 1
      }
    }
    frame.offset = offset
    buffer.moveReaderIndex(forwardBy: count)
  }

  private mutating func controlEvent(_ opcode: WebSocketOpcode) -> Event {
    switch opcode {
    case .ping: return .ping(control)
    case .pong: return .pong(control)
    default: break
    }
    finished = true
    if control.isEmpty { return .close(code: nil, reason: "") }
    guard control.count >= 2 else {
      return .failure(.protocolError, "A close frame has a one-byte payload.")
    }
    let code = WebSocketCloseCode(rawValue: UInt16(control[0]) << 8 | UInt16(control[1]))
    guard code.isAllowedOnWire else {
      return .failure(.protocolError, "A close frame has a code that may not be sent.")
    }
    var validator = UTF8Validator()
    let reason = control[2...]
    guard validator.validate(reason), validator.isComplete else {
      return .failure(.invalidFramePayloadData, "A close reason is not valid UTF-8.")
    }
    return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
  }
}
