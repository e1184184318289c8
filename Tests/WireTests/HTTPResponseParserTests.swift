import Testing

@testable import Wire

/// The response parser alone: every framing, the limits, malformed input, and a cut at every
/// byte. Each input is also fed one byte at a time, and must give the same event.
@Suite struct HTTPResponseParserTests {
  /// The event for `text` fed whole and fed byte by byte (which must agree), then `finish()`
  /// when `closed` (the server's FIN after the bytes).
  func parse(
    _ text: String, method: HTTPMethod = .get, limits: HTTPResponseParser.Limits = .init(),
    closed: Bool = false
  ) -> HTTPResponseParser.Event? {
    let bytes = Array(text.utf8)
    func run(pieceSize: Int) -> HTTPResponseParser.Event? {
      var parser = HTTPResponseParser(requestMethod: method, limits: limits)
      var index = 0
      repeat {
        let end = min(bytes.count, index + pieceSize)
        parser.append(contentsOf: bytes[index..<end])
        index = end
        if let event = parser.next() { return event }
      } while index < bytes.count
      return closed ? parser.finish() : nil
    }
    let whole = run(pieceSize: max(1, bytes.count))
    let split = run(pieceSize: 1)
    #expect(summary(whole) == summary(split), "split input parsed differently")
    return whole
  }

  func summary(_ event: HTTPResponseParser.Event?) -> String {
    switch event {
    case nil: "nil"
    case .response(let head, let body)?:
      "\(head.status.code) \(head.status.reason) 1.\(head.minorVersion) \(head.framing) "
        + "keepAlive=\(head.keepAlive) \(String(decoding: body, as: UTF8.self))"
    case .failure(let error)?: "failure \(error.kind) \(error.message)"
    }
  }

  func body(_ event: HTTPResponseParser.Event?) -> String? {
    if case .response(_, let body)? = event { return String(decoding: body, as: UTF8.self) }
    return nil
  }

  func head(_ event: HTTPResponseParser.Event?) -> HTTPResponseHead? {
    if case .response(let head, _)? = event { return head }
    return nil
  }

  func failure(_ event: HTTPResponseParser.Event?) -> HTTPResponseParseError? {
    if case .failure(let error)? = event { return error }
    return nil
  }

  // MARK: - Framing

  @Test func contentLengthFramesTheBody() {
    let event = parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello")
    #expect(body(event) == "hello")
    #expect(head(event)?.status == HTTPStatus(code: 200, reason: "OK"))
    #expect(head(event)?.headers["x-a"] == "b")
    #expect(head(event)?.framing == .length(5))
    #expect(head(event)?.keepAlive == true)
  }

  @Test func chunkedBodiesAreJoinedWithExtensionsAndTrailersDropped() {
    let event = parse(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5;name=value\r\nhello\r\n1\r\n \r\nA \r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n")
    #expect(body(event) == "hello 0123456789")
    #expect(head(event)?.framing == .chunked)
    #expect(head(event)?.headers["Trailer"] == nil)
  }

  @Test func aBodyWithNeitherLengthNorChunkedEndsWithTheConnection() {
    let text = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"
    #expect(parse(text) == nil)
    let event = parse(text, closed: true)
    #expect(body(event) == "until the end")
    #expect(head(event)?.framing == .untilClose)
    #expect(head(event)?.keepAlive == false)
  }

  @Test func noBodyForHEADAnd204And304WhateverTheHeadersSay() {
    let withLength = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
    #expect(body(parse(withLength, method: .head)) == "")
    #expect(head(parse(withLength, method: .head))?.framing == HTTPResponseHead.BodyFraming.none)
    #expect(body(parse("HTTP/1.1 204 No Content\r\n\r\n")) == "")
    #expect(body(parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n")) == "")
    #expect(body(parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) == "")
  }

  @Test func informationalResponsesAreSkipped() {
    let event = parse(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
    #expect(head(event)?.status.code == 201)
    #expect(head(event)?.headers["Link"] == nil)
    #expect(body(event) == "ok")
  }

  @Test func switchingProtocolsThatWasNotAskedForIsRefused() {
    #expect(failure(parse("HTTP/1.1 101 Switching Protocols\r\n\r\n"))?.kind == .malformed)
  }

  @Test func keepAliveFollowsTheVersionAndConnection() {
    let close = parse(
      "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n")
    #expect(head(close)?.keepAlive == false)
    let old = parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
    #expect(head(old)?.keepAlive == false)
    #expect(head(old)?.minorVersion == 0)
    let oldKept = parse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n")
    #expect(head(oldKept)?.keepAlive == true)
  }

  @Test func theReasonPhraseMayBeEmptyOrMissing() {
    #expect(head(parse("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n"))?.status.reason == "")
    #expect(head(parse("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n"))?.status.code == 404)
  }

  @Test func bytesAfterTheResponseAreCounted() {
    var parser = HTTPResponseParser()
    parser.append(contentsOf: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA".utf8))
    #expect(body(parser.next()) == "ok")
    #expect(parser.bytesAfterResponse == 5)
    #expect(parser.next() == nil)
    #expect(parser.finish() == nil)
  }

  // MARK: - Cut short

  /// The point of the parser: a response cut at any byte, whatever its framing, is
  /// `truncated` when the connection ends, never a response.
  @Test(arguments: [
    "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"bc\"}\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
  ])
  func aResponseCutAtAnyByteIsTruncated(_ text: String) {
    let bytes = Array(text.utf8)
    for cut in 0..<bytes.count {
      var parser = HTTPResponseParser()
      parser.append(contentsOf: bytes[..<cut])
      #expect(parser.next() == nil, "cut at \(cut) gave an event before the end")
      #expect(failure(parser.finish())?.kind == .truncated, "cut at \(cut)")
    }
    var parser = HTTPResponseParser()
    parser.append(contentsOf: bytes)
    #expect(head(parser.next()) != nil)
  }

  // MARK: - Malformed

  @Test(arguments: [
    "HTTP/2 200 OK\r\n\r\n",
    "HTTP/2.0 200 OK\r\n\r\n",
    "http/1.1 200 OK\r\n\r\n",
    "HTTP/1.1 20 OK\r\n\r\n",
    "HTTP/1.1 2000 OK\r\n\r\n",
    "HTTP/1.1 200OK\r\n\r\n",
    "HTTP/1.1 099 Low\r\n\r\n",
    "HTTP/1.1 600 High\r\n\r\n",
    "HTTP/1.1  200 OK\r\n\r\n",
    "\r\nHTTP/1.1 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n",
    "HTTP/1.1 200 O\u{0}K\r\n\r\n",
    "HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",
    "HTTP/1.1 200 OK\r\nName : value\r\n\r\n",
    "HTTP/1.1 200 OK\r\nNo colon\r\n\r\n",
    "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
    "HTTP/1.1 200 OK\r\nA: b\u{1}c\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
    "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
    "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 junk\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;a=\u{1}\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad trailer\r\n\r\n",
  ])
  func malformedResponsesAreRefused(_ text: String) {
    let error = failure(parse(text))
    #expect(error?.kind == .malformed, "\(text.debugDescription): \(summary(parse(text)))")
  }

  @Test func afterAFailureTheParserGivesTheSameFailure() {
    var parser = HTTPResponseParser()
    parser.append(contentsOf: Array("HTTP/9.9 200 OK\r\n\r\n".utf8))
    let first = failure(parser.next())
    parser.append(contentsOf: Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
    #expect(first != nil)
    #expect(failure(parser.next()) == first)
    #expect(failure(parser.finish()) == first)
  }

  // MARK: - Limits

  @Test func everyLimitIsEnforced() {
    var limits = HTTPResponseParser.Limits()
    limits.statusLine = 20
    limits.headerLine = 20
    limits.headerSection = 40
    limits.headerCount = 3
    limits.body = 8
    limits.chunkLine = 8
    limits.informationalResponses = 1
    let cases = [
      "HTTP/1.1 200 A reason that is long\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-Long: 0123456789abcdef\r\n\r\n",
      "HTTP/1.1 200 OK\r\nA: 1234567890\r\nB: 1234567890\r\nC: 1234567890\r\n\r\n",
      "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n123456789",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n4\r\n1234\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;abcdefghij\r\n1\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n",
    ]
    for text in cases {
      #expect(failure(parse(text, limits: limits))?.kind == .tooLarge, "\(text.debugDescription)")
    }
    let untilClose = "HTTP/1.1 200 OK\r\n\r\n123456789"
    #expect(failure(parse(untilClose, limits: limits, closed: true))?.kind == .tooLarge)
    // Exactly at the limits is accepted.
    #expect(
      body(parse("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678", limits: limits))
        == "12345678")
  }
}
