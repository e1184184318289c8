import Testing

@testable import Wire

/// Feeds `text` to a parser and drains every event.
private func events(
  _ bytes: [UInt8], limits: HTTPRequestParser.Limits = .init(), pieceSize: Int? = nil
) -> [HTTPRequestParser.Event] {
  var parser = HTTPRequestParser(limits: limits)
  var result: [HTTPRequestParser.Event] = []
  let size = pieceSize ?? max(1, bytes.count)
  var index = 0
  repeat {
    let end = min(bytes.count, index + size)
    parser.append(contentsOf: bytes[index..<end])
    index = end
    while let event = parser.next() {
      result.append(event)
      if case .failure = event { return result }
    }
  } while index < bytes.count
  return result
}

private func events(_ text: String, limits: HTTPRequestParser.Limits = .init())
  -> [HTTPRequestParser
  .Event]
{
  events(Array(text.utf8), limits: limits)
}

private func requests(_ events: [HTTPRequestParser.Event]) -> [(HTTPRequestHead, [UInt8])] {
  events.compactMap {
    if case .request(let head, let body) = $0 { return (head, body) }
    return nil
  }
}

private func failure(_ events: [HTTPRequestParser.Event]) -> HTTPParseError? {
  for event in events {
    if case .failure(let error) = event { return error }
  }
  return nil
}

/// A request with a short name to show in test results.
struct RawRequest: Sendable, CustomTestStringConvertible {
  let name: String
  let text: String

  init(_ name: String, _ text: String) {
    self.name = name
    self.text = text
  }

  var testDescription: String { name }
}

@Suite struct HTTPRequestParserTests {
  @Test func parsesASimpleGet() throws {
    let parsed = requests(events("GET /a?b=1 HTTP/1.1\r\nHost: x\r\nX-Name:  value \r\n\r\n"))
    let (head, body) = try #require(parsed.first)
    #expect(head.method == .get)
    #expect(head.target == "/a?b=1")
    #expect(head.headers["x-name"] == "value")
    #expect(head.keepAlive)
    #expect(body.isEmpty)
  }

  @Test func byteByByteFeedingGivesTheSameRequests() {
    let text = Array(
      "POST /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"
        .utf8)
    let whole = requests(events(text))
    let pieces = requests(events(text, pieceSize: 1))
    #expect(whole.count == 2)
    #expect(pieces.map(\.1) == whole.map(\.1))
    #expect(pieces.map(\.0.target) == ["/e", "/"])
    #expect(pieces.first?.1 == Array("hello".utf8))
  }

  @Test func headComesBeforeTheBodySoTheServerCanSendContinue() {
    var parser = HTTPRequestParser()
    parser.append(
      contentsOf: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"
        .utf8)
    guard case .head(let head) = parser.next() else {
      Issue.record("expected the head")
      return
    }
    #expect(head.expectsContinue)
    #expect(parser.next() == nil)
    parser.append(contentsOf: "abc".utf8)
    guard case .request(_, let body) = parser.next() else {
      Issue.record("expected the request")
      return
    }
    #expect(body == Array("abc".utf8))
  }

  @Test func connectionHeaderDecidesKeepAlive() {
    let closing = requests(events("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    let old = requests(events("GET / HTTP/1.0\r\n\r\n"))
    let oldKept = requests(events("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
    #expect(closing.first?.0.keepAlive == false)
    #expect(old.first?.0.keepAlive == false)
    #expect(oldKept.first?.0.keepAlive == true)
  }

  @Test func requestLineAtTheLimitIsAcceptedAndOneByteMoreIs414() {
    let target = String(repeating: "a", count: 8192 - 14)
    #expect(failure(events("GET /\(target) HTTP/1.1\r\nHost: x\r\n\r\n")) == nil)
    let error = failure(events("GET /\(target)a HTTP/1.1\r\nHost: x\r\n\r\n"))
    #expect(error?.status.code == 414)
  }

  @Test func requestLineWithoutEndIsRefusedOnceOverTheLimit() {
    let error = failure(events("GET /" + String(repeating: "a", count: 9000)))
    #expect(error?.status.code == 414)
  }

  @Test func headerFieldOver8KiBIs431() {
    let value = String(repeating: "v", count: 8200)
    #expect(failure(events("GET / HTTP/1.1\r\nHost: x\r\nX: \(value)\r\n\r\n"))?.status.code == 431)
  }

  @Test func headerSectionOver32KiBIs431() {
    let field = "X: " + String(repeating: "v", count: 7000) + "\r\n"
    let text = "GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: field, count: 5) + "\r\n"
    #expect(failure(events(text))?.status.code == 431)
  }

  @Test func hundredHeadersAreAcceptedAndTheHundredAndFirstIs431() {
    let fields = (1..<100).map { "X-\($0): a\r\n" }.joined()
    #expect(failure(events("GET / HTTP/1.1\r\nHost: x\r\n\(fields)\r\n")) == nil)
    #expect(
      failure(events("GET / HTTP/1.1\r\nHost: x\r\n\(fields)X-100: a\r\n\r\n"))?.status.code == 431)
  }

  @Test func bodyOverTheLimitIs413BeforeItArrives() {
    let error = failure(events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 65537\r\n\r\n"))
    #expect(error?.status.code == 413)
    #expect(error?.code == "too_large")
  }

  @Test func chunkedBodyOverTheLimitIs413() {
    var limits = HTTPRequestParser.Limits()
    limits.body = 10
    let error = failure(
      events(
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nabcdef\r\n0\r\n\r\n",
        limits: limits))
    #expect(error?.status.code == 413)
  }

  @Test func bodyLimitIsConfigurable() {
    var limits = HTTPRequestParser.Limits()
    limits.body = 1 << 20
    let body = String(repeating: "b", count: 100_000)
    let parsed = requests(
      events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n\(body)", limits: limits))
    #expect(parsed.first?.1.count == 100_000)
  }

  @Test(arguments: [
    RawRequest(
      "Content-Length with Transfer-Encoding",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
    RawRequest(
      "two equal Content-Length fields",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
    RawRequest(
      "two different Content-Length fields",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
    RawRequest(
      "Content-Length list", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3,3\r\n\r\nabc"),
    RawRequest(
      "chunked not last", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
    RawRequest(
      "chunked twice",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
    ),
    RawRequest(
      "Transfer-Encoding in HTTP/1.0",
      "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    RawRequest("bare CR", "GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n"),
    RawRequest("NUL", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{0}b\r\n\r\n"),
    RawRequest("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n"),
    RawRequest("space before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
    RawRequest("bare LF", "GET / HTTP/1.1\nHost: x\n\n"),
    RawRequest("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n"),
    RawRequest("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
    RawRequest(
      "negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
    RawRequest(
      "chunk size not hexadecimal",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
    RawRequest(
      "chunk data without CRLF",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n"),
  ])
  func smugglingAndSyntaxErrorsAre400(request: RawRequest) {
    let error = failure(events(request.text))
    #expect(error?.status.code == 400, "\(request.name)")
    #expect(error?.code == "bad_request")
  }

  @Test func nothingIsParsedAfterAFailure() {
    var parser = HTTPRequestParser()
    parser.append(
      contentsOf:
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        .utf8)
    guard case .failure = parser.next() else {
      Issue.record("expected a failure")
      return
    }
    parser.append(contentsOf: "GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
    guard case .failure = parser.next() else {
      Issue.record("the parser must stay failed")
      return
    }
  }

  @Test func otherTransferCodingsAre501AndOtherVersions505() {
    #expect(
      failure(events("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"))?
        .status.code == 501)
    #expect(failure(events("GET / HTTP/2.0\r\nHost: x\r\n\r\n"))?.status.code == 505)
    #expect(
      failure(events("GET / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n"))?.status.code == 417)
  }

  @Test func bytesAfterAnUpgradeRequestAreHandedOver() {
    var parser = HTTPRequestParser()
    parser.append(
      contentsOf:
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{0}"
        .utf8)
    _ = parser.next()
    guard case .request(let head, _) = parser.next() else {
      Issue.record("expected the request")
      return
    }
    #expect(head.isWebSocketUpgrade)
    #expect(parser.takeRemainingBytes() == [0xC2, 0x81, 0x00])
  }
}
