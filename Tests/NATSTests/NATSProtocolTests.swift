import Testing

@testable import NATS

/// NATS's client protocol as the relay speaks it; the client against real servers (a cluster,
/// servers killed and cut off) is proven by Tests/e2e/test_nats_relay.py.
@Suite struct NATSProtocolTests {
  @Test func operationsAreReadHoweverTheBytesAreSplit() throws {
    let stream = Array(
      "INFO {\"server_id\":\"x\"}\r\nPING\r\nMSG chat.live 1 5\r\nhello\r\nMSG a.b 2 reply.to 0\r\n\r\n+OK\r\nPONG\r\n-ERR 'Stale Connection'\r\n"
        .utf8)
    let expected: [NATSOperation] = [
      .info("{\"server_id\":\"x\"}"), .ping,
      .message(subject: "chat.live", subscription: "1", payload: Array("hello".utf8)),
      .message(subject: "a.b", subscription: "2", payload: []), .ok, .pong,
      .error("'Stale Connection'"),
    ]
    for chunk in [1, 2, 3, 7, stream.count] {
      var parser = NATSParser()
      var read: [NATSOperation] = []
      var offset = 0
      while offset < stream.count {
        parser.append(Array(stream[offset..<min(offset + chunk, stream.count)]))
        offset += chunk
        while let operation = try parser.next() { read.append(operation) }
      }
      #expect(read == expected, "chunks of \(chunk)")
    }
  }

  @Test func aPayloadHoldingCRLFIsCountedNotSplit() throws {
    var parser = NATSParser()
    parser.append(Array("MSG s 1 4\r\n\r\n\r\n\r\n".utf8))
    #expect(
      try parser.next() == .message(subject: "s", subscription: "1", payload: [13, 10, 13, 10]))
    #expect(try parser.next() == nil)
  }

  @Test func brokenProtocolIsAnError() {
    for text in [
      "HELLO\r\n", "MSG s 1\r\n", "MSG s 1 x\r\n", "MSG s 1 -1\r\n", "MSG s 1 2\r\nabcd\r\n",
      "MSG a b c d e\r\n",
    ] {
      var parser = NATSParser()
      parser.append(Array(text.utf8))
      #expect(throws: NATSProtocolError.self, "\(text)") { while try parser.next() != nil {} }
    }
  }

  @Test func aLineWithoutAnEndPastTheLimitIsAnError() {
    var parser = NATSParser()
    parser.append([UInt8](repeating: UInt8(ascii: "I"), count: NATSParser.maxLineBytes + 1))
    #expect(throws: NATSProtocolError.self) { try parser.next() }
  }

  @Test func commandsAreWhatTheServerReads() {
    #expect(
      NATSCommand.publish("chat.live", Array("hi".utf8)) == Array("PUB chat.live 2\r\nhi\r\n".utf8))
    #expect(NATSCommand.subscribe("chat.live", id: "1") == Array("SUB chat.live 1\r\n".utf8))
    let connect = String(decoding: NATSCommand.connect(name: "n", tlsRequired: true), as: UTF8.self)
    #expect(connect.hasPrefix("CONNECT {") && connect.hasSuffix("}\r\n"))
    #expect(connect.contains(#""echo":false"#) && connect.contains(#""tls_required":true"#))
    #expect(connect.contains(#""verbose":false"#))
  }

  @Test func serverURLs() {
    #expect(NATSServerURL("nats://127.0.0.1:4223") == NATSServerURL("nats://127.0.0.1:4223"))
    #expect(NATSServerURL("nats://127.0.0.1:4223")?.port == 4223)
    #expect(NATSServerURL("nats://nats.internal")?.port == 4222)
    #expect(NATSServerURL("tls://nats.internal:4443")?.tls == true)
    #expect(NATSServerURL("nats://[::1]:4222")?.host == "::1")
    for bad in [
      "http://h:4222", "nats://", "nats://h:0", "nats://h:x", "nats://u:p@h:4222", "h:4222",
    ] {
      #expect(NATSServerURL(bad) == nil, "\(bad)")
    }
  }
}
