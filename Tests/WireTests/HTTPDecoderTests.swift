import Testing

@testable import Wire

/// What the one decoder does for both directions: shared rules said in each direction's words,
/// responses read one after the other on a pipelined connection, and the answer to an upgrade.
@Suite struct HTTPDecoderTests {
  @Test func bothDirectionsRefuseTheSameBrokenFieldEachInItsOwnWords() {
    var requests = HTTPRequestParser()
    requests.append(contentsOf: Array("GET / HTTP/1.1\r\nHost : x\r\n\r\n".utf8))
    var responses = HTTPResponseParser()
    responses.append(contentsOf: Array("HTTP/1.1 200 OK\r\nHost : x\r\n\r\n".utf8))
    guard case .failure(let requestError)? = requests.next(),
      case .failure(let responseError)? = responses.next()
    else {
      Issue.record("a field with a space before its colon was accepted")
      return
    }
    #expect(requestError.status == .badRequest)
    #expect(responseError.kind == .malformed)
    #expect(requestError.message == responseError.message)
  }

  @Test func eachDirectionHasItsOwnDefaultLimits() {
    let request = HTTPRequestParser.Limits()
    let response = HTTPResponseParser.Limits()
    #expect(request.headerSection == 32 * 1024)
    #expect(request.body == 64 * 1024)
    #expect(response.headerSection == 64 * 1024)
    #expect(response.body == 16 * 1024 * 1024)
    var changed = request
    changed.requestLine = 10
    #expect(changed.startLine == 10)
  }

  @Test func aPipelinedConnectionGivesEachResponseToItsRequestInOrder() {
    var parser = HTTPResponseParser(requestMethod: .get)
    parser.append(
      contentsOf: Array(
        ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"
          + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
          + "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n").utf8)
    )
    var seen: [String] = []
    for method in [HTTPMethod.head, .post, .get] {
      guard case .response(let head, let body)? = parser.next() else {
        Issue.record("a response is missing after \(seen)")
        return
      }
      seen.append("\(head.status.code) \(String(decoding: body, as: UTF8.self))")
      #expect(parser.next() == nil, "it waits to be told of the next request")
      parser.expectResponse(to: method)
    }
    // The answer to the HEAD has no body, whatever its Content-Length says.
    #expect(seen == ["200 one", "200 ", "201 two"])
    #expect(parser.next() == nil)
  }

  @Test func bytesAfterAResponseNobodyAskedForAreCounted() {
    var parser = HTTPResponseParser()
    parser.append(contentsOf: Array("HTTP/1.1 204 No Content\r\n\r\nXY".utf8))
    guard case .response? = parser.next() else {
      Issue.record("no response")
      return
    }
    #expect(parser.bytesAfterResponse == 2)
  }

  @Test func theAnswerToAnUpgradeEndsAtItsHeadAndLeavesTheRestToTheNewProtocol() {
    var parser = HTTPResponseParser(upgradeLimits: HTTPResponseParser.Limits())
    let frame = WebSocketFrame.encode(opcode: .text, payload: Array("hi".utf8))
    parser.append(
      contentsOf: Array(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
          .utf8) + frame)
    guard case .response(let head, let body)? = parser.next() else {
      Issue.record("the 101 was not a response")
      return
    }
    #expect(head.status.code == 101)
    #expect(body.isEmpty)
    #expect(parser.takeRemainingBytes() == frame)
  }

  @Test func aSwitchNobodyAskedForIsStillRefused() {
    var parser = HTTPResponseParser()
    parser.append(contentsOf: Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
    guard case .failure(let error)? = parser.next() else {
      Issue.record("the 101 was accepted")
      return
    }
    #expect(error.kind == .malformed)
  }
}
