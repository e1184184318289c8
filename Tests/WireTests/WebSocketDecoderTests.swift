import Testing

@testable import Wire

private func decode(
  _ bytes: [UInt8], role: WebSocketRole = .server, maxMessageSize: Int = 1 << 20,
  pieceSize: Int? = nil
) -> [WebSocketDecoder.Event] {
  var decoder = WebSocketDecoder(role: role, maxMessageSize: maxMessageSize)
  var events: [WebSocketDecoder.Event] = []
  let size = pieceSize ?? max(1, bytes.count)
  var index = 0
  repeat {
    let end = min(bytes.count, index + size)
    decoder.append(contentsOf: bytes[index..<end])
    index = end
    while let event = decoder.next() { events.append(event) }
  } while index < bytes.count
  return events
}

/// A frame as a client sends it (masked).
private func clientFrame(
  _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true
) -> [UInt8] {
  WebSocketFrame.encode(opcode: opcode, payload: payload, fin: fin, maskingKey: 0x1234_5678)
}

private func rawFrame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
  var bytes = clientFrame(.text, payload)
  bytes[0] = first
  if !masked { bytes = WebSocketFrame.encode(opcode: .text, payload: payload) }
  bytes[0] = first
  return bytes
}

@Suite struct WebSocketDecoderTests {
  @Test func maskedTextRoundTrips() {
    #expect(decode(clientFrame(.text, Array("héllo".utf8))) == [.text("héllo")])
  }

  @Test(arguments: [0, 125, 126, 65535, 65536, 200_000])
  func everyLengthEncodingRoundTrips(length: Int) {
    let payload = [UInt8](repeating: 0xAB, count: length)
    #expect(decode(clientFrame(.binary, payload)) == [.binary(payload)])
    let unmasked = WebSocketFrame.encode(opcode: .binary, payload: payload)
    #expect(decode(unmasked, role: .client) == [.binary(payload)])
  }

  @Test func byteByByteFeedingGivesTheSameEvents() {
    let bytes =
      clientFrame(.text, Array("frag".utf8), fin: false) + clientFrame(.ping, [1, 2])
      + clientFrame(.continuation, Array("ment".utf8)) + clientFrame(.close, [0x03, 0xE8])
    let expected: [WebSocketDecoder.Event] = [
      .ping([1, 2]), .text("fragment"), .close(code: .normalClosure, reason: ""),
    ]
    #expect(decode(bytes) == expected)
    #expect(decode(bytes, pieceSize: 1) == expected)
  }

  @Test func utf8SplitAcrossFragmentsIsAccepted() {
    let bytes = Array("κόσμε".utf8)
    let frames =
      clientFrame(.text, Array(bytes[..<3]), fin: false)
      + clientFrame(.continuation, Array(bytes[3...]))
    #expect(decode(frames) == [.text("κόσμε")])
  }

  @Test func invalidUTF8FailsAtTheFirstBadFragmentNotAtTheEnd() {
    let frames =
      clientFrame(.text, Array("ok".utf8), fin: false)
      + clientFrame(.continuation, [0xF4, 0x90], fin: false)
    #expect(
      decode(frames).last
        == .failure(.invalidFramePayloadData, "A text message is not valid UTF-8."))
  }

  @Test func textEndingInsideACharacterIs1007() {
    guard case .failure(let code, _) = decode(clientFrame(.text, [0xCE])).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .invalidFramePayloadData)
  }

  @Test(arguments: [
    ("reserved bit 1", rawFrame(0x80 | 0x40 | 0x1, [0x61])),
    ("reserved bit 2", rawFrame(0x80 | 0x20 | 0x1, [0x61])),
    ("reserved bit 3", rawFrame(0x80 | 0x10 | 0x2, [0x61])),
    ("opcode 3", rawFrame(0x80 | 0x3, [])),
    ("opcode 11", rawFrame(0x80 | 0xB, [])),
    ("fragmented ping", rawFrame(0x9, [])),
    ("continuation first", rawFrame(0x80, [0x61])),
    ("unmasked client frame", rawFrame(0x81, [0x61], masked: false)),
  ])
  func protocolErrorsAre1002(name: String, bytes: [UInt8]) {
    guard case .failure(let code, _) = decode(bytes).last else {
      Issue.record("\(name): expected a failure")
      return
    }
    #expect(code == .protocolError, "\(name)")
  }

  @Test func maskedServerFrameIsRefusedByTheClient() {
    guard case .failure(let code, _) = decode(clientFrame(.text, [0x61]), role: .client).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .protocolError)
  }

  @Test func controlFrameOver125BytesIs1002() {
    guard
      case .failure(let code, _) = decode(clientFrame(.ping, [UInt8](repeating: 0, count: 126)))
        .last
    else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .protocolError)
  }

  @Test func newMessageInsideAFragmentedOneIs1002() {
    let frames = clientFrame(.text, [0x61], fin: false) + clientFrame(.text, [0x62])
    guard case .failure(let code, _) = decode(frames).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .protocolError)
  }

  @Test func messageOverTheLimitIs1009FromTheHeaderAlone() {
    let header = Array(clientFrame(.binary, [UInt8](repeating: 0, count: 2000)).prefix(8))
    #expect(
      decode(header, maxMessageSize: 1000).last
        == .failure(.messageTooBig, "The message is larger than the limit."))
  }

  @Test func fragmentsAddingUpOverTheLimitAre1009() {
    let frames =
      clientFrame(.binary, [UInt8](repeating: 0, count: 600), fin: false)
      + clientFrame(.continuation, [UInt8](repeating: 0, count: 600))
    guard case .failure(let code, _) = decode(frames, maxMessageSize: 1000).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .messageTooBig)
  }

  @Test func lengthWithTheTopBitSetIs1002() {
    let bytes: [UInt8] = [0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4]
    guard case .failure(let code, _) = decode(bytes).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(code == .protocolError)
  }

  @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999])
  func validCloseCodesAreReported(code: Int) {
    let payload = WebSocketFrame.closePayload(
      code: WebSocketCloseCode(rawValue: UInt16(code)), reason: "r")
    #expect(
      decode(clientFrame(.close, payload)) == [
        .close(code: WebSocketCloseCode(rawValue: UInt16(code)), reason: "r")
      ])
  }

  @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
  func invalidCloseCodesAre1002(code: Int) {
    let payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
    guard case .failure(let failure, _) = decode(clientFrame(.close, payload)).last else {
      Issue.record("expected a failure")
      return
    }
    #expect(failure == .protocolError)
  }

  @Test func closeWithOneBytePayloadIs1002AndBadReasonIs1007() {
    guard case .failure(let short, _) = decode(clientFrame(.close, [0x03])).last,
      case .failure(let badReason, _) = decode(clientFrame(.close, [0x03, 0xE8, 0xC0, 0xAF])).last
    else {
      Issue.record("expected failures")
      return
    }
    #expect(short == .protocolError)
    #expect(badReason == .invalidFramePayloadData)
  }

  @Test func emptyCloseHasNoCode() {
    #expect(decode(clientFrame(.close, [])) == [.close(code: nil, reason: "")])
  }

  @Test func nothingIsDecodedAfterTheClose() {
    let frames = clientFrame(.close, [0x03, 0xE8]) + clientFrame(.text, [0x61])
    #expect(decode(frames) == [.close(code: .normalClosure, reason: "")])
  }

  @Test func closePayloadCutsTheReasonOnACharacterBoundary() {
    let payload = WebSocketFrame.closePayload(
      code: .normalClosure, reason: String(repeating: "é", count: 100))
    #expect(payload.count == 124)
    var validator = UTF8Validator()
    let valid = validator.validate(payload.dropFirst(2))
    #expect(valid && validator.isComplete)
  }
}
