// libFuzzer target for WebSocketDecoder and UTF8Validator (built by scripts/wire-fuzz with
// their own source files; no I/O). The first byte picks the role, the message limit and how
// the rest is cut into pieces; whole and split input must decode the same, and the
// validator must agree with the standard library.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let role: WebSocketRole = input[0] & 1 == 0 ? .server : .client
  let maxMessageSize = input[0] & 2 == 0 ? 1 << 20 : 64
  let pieceSize = Int((input[0] >> 2) % 16) + 1
  let bytes = Array(input.dropFirst())

  let whole = decode(bytes, role: role, maxMessageSize: maxMessageSize, pieceSize: bytes.count)
  let pieces = decode(bytes, role: role, maxMessageSize: maxMessageSize, pieceSize: pieceSize)
  if whole != pieces {
    fatalError("Split input decoded differently:\n\(whole)\n\(pieces)")
  }
  for event in whole {
    switch event {
    case .text(let text) where text.utf8.count > maxMessageSize:
      fatalError("A text message over the limit was delivered")
    case .binary(let bytes) where bytes.count > maxMessageSize:
      fatalError("A binary message over the limit was delivered")
    case .ping(let payload) where payload.count > 125, .pong(let payload) where payload.count > 125:
      fatalError("A control payload over 125 bytes was delivered")
    default: break
    }
  }

  var validator = UTF8Validator()
  let ours = validator.validate(bytes) && validator.isComplete
  if ours != (String(validating: bytes, as: UTF8.self) != nil) {
    fatalError("UTF8Validator disagrees with the standard library on \(bytes)")
  }
  return 0
}

private func decode(
  _ bytes: [UInt8], role: WebSocketRole, maxMessageSize: Int, pieceSize: Int
) -> [WebSocketDecoder.Event] {
  var decoder = WebSocketDecoder(role: role, maxMessageSize: maxMessageSize)
  var events: [WebSocketDecoder.Event] = []
  var index = 0
  let step = max(1, pieceSize)
  repeat {
    let end = min(bytes.count, index + step)
    decoder.append(contentsOf: bytes[index..<end])
    index = end
    while let event = decoder.next() { events.append(event) }
  } while index < bytes.count
  return events
}
