import ChatAPI
import ChatServer
import Testing

/// API.md: "When several apply, the first in this order wins: 401, 429, 413, 400, 404, 422, 409."
@Suite struct ErrorPrecedenceTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let carol: Session
  let conversation: String

  init() async throws {
    server = try TestServer(
      configuration: ServerConfiguration(devMode: true, maxBodyBytes: 1_024, rateLimit: nil))
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    carol = try await server.login("carol")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  var messagesPath: String { "/v1/conversations/\(conversation)/messages" }
  static let key = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
  static let oversized = String(repeating: "x", count: 2_000)
  static let tooLongText = String(repeating: "a", count: 4_097)

  func expect(
    _ response: TestResponse, _ status: Int, _ code: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
    #expect(response.errorCode == code, sourceLocation: sourceLocation)
    #expect(
      response.header("Content-Type") == "application/json; charset=utf-8",
      sourceLocation: sourceLocation)
    let error = response.object["error"] as? [String: Any]
    #expect((error?["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
  }

  @Test func unauthorizedBeatsEverythingElse() async throws {
    let response = await server.request(
      "POST", "/v1/conversations/not-an-id/messages", body: Self.oversized)
    expect(response, 401, "unauthorized")
    let unknownRoute = await server.request("GET", "/v1/nothing-here")
    expect(unknownRoute, 401, "unauthorized")
  }

  @Test func rateLimitedBeatsTooLarge() async throws {
    let limited = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, maxBodyBytes: 1_024, rateLimit: RateLimit(burst: 1, perSecond: 1)))
    let alice = try await limited.login("alice")
    _ = await limited.request("GET", "/v1/conversations", token: alice.accessToken)
    let response = await limited.request(
      "POST", "/v1/conversations", token: alice.accessToken, body: Self.oversized)
    expect(response, 429, "rate_limited")
  }

  @Test func tooLargeBodyBeatsBadRequest() async throws {
    let response = await server.request(
      "POST", "/v1/conversations/not-an-id/messages", token: alice.accessToken,
      body: Self.oversized)
    expect(response, 413, "too_large")
  }

  @Test func tooLongTextBeatsAMissingFieldAndAMalformedId() async throws {
    let big = try TestServer()
    let alice = try await big.login("alice")
    let body = try TestJSON.encode(["text": Self.tooLongText])
    let response = await big.request(
      "POST", "/v1/conversations/not-an-id/messages", token: alice.accessToken, body: body)
    expect(response, 413, "too_large")
  }

  @Test func badRequestBeatsNotFound() async throws {
    // carol is not a member, and the query is not a number: the 400 wins.
    let response = await server.messages(
      in: conversation, as: carol, query: ["limit": "abc"])
    expect(response, 400, "bad_request")
    let malformedId = await server.request(
      "GET", "/v1/conversations/not-a-uuid/messages", token: alice.accessToken)
    expect(malformedId, 400, "bad_request")
  }

  @Test func notFoundBeatsInvalid() async throws {
    let page = await server.messages(in: conversation, as: carol, query: ["limit": "0"])
    expect(page, 404, "not_found")
    let empty = try await server.send("", to: conversation, as: carol, clientMessageId: Self.key)
    expect(empty, 404, "not_found")
    let receipt = await server.request(
      "POST", "/v1/conversations/\(conversation)/read", token: carol.accessToken,
      body: #"{"upToSequence":-1}"#)
    expect(receipt, 404, "not_found")
  }

  @Test func invalidBeatsConflict() async throws {
    _ = try await server.send("first", to: conversation, as: alice, clientMessageId: Self.key)
    let response = try await server.send("", to: conversation, as: alice, clientMessageId: Self.key)
    expect(response, 422, "invalid")
  }

  @Test func nonMembersGetExactlyTheUnknownConversationAnswer() async throws {
    _ = try await server.send("secret", to: conversation, as: alice)
    let unknown = "00000000-0000-4000-8000-000000000000"
    let routes: [(String, String, String)] = [
      ("GET", "messages", ""),
      ("POST", "messages", #"{"clientMessageId":"\#(Self.key)","text":"hi"}"#),
      ("GET", "receipts", ""),
      ("POST", "delivered", #"{"upToSequence":1}"#),
      ("POST", "read", #"{"upToSequence":1}"#),
    ]
    for (method, suffix, body) in routes {
      let asStranger = await server.request(
        method, "/v1/conversations/\(conversation)/\(suffix)", token: carol.accessToken,
        body: body)
      let asNobody = await server.request(
        method, "/v1/conversations/\(unknown)/\(suffix)", token: carol.accessToken, body: body)
      expect(asStranger, 404, "not_found")
      #expect(asStranger.body == asNobody.body, "\(method) \(suffix)")
    }
    let list = await server.request("GET", "/v1/conversations", token: carol.accessToken)
    #expect(list.items.isEmpty)
    let sync = await server.request("GET", "/v1/sync", token: carol.accessToken)
    #expect((sync.object["conversations"] as? [Any])?.isEmpty == true)
  }

  @Test func unknownRoutesAndMethodsAreNotFoundOnceSignedIn() async throws {
    let requests: [(String, String)] = [
      ("GET", "/v1/nothing"), ("DELETE", "/v1/conversations"), ("PUT", messagesPath),
      ("GET", "/v1/conversations/\(conversation)"), ("GET", "/v1/conversations/"),
      ("POST", "/healthz"),
    ]
    for (method, path) in requests {
      let response = await server.request(method, path, token: alice.accessToken)
      expect(response, 404, "not_found")
    }
  }

  @Test func malformedBodiesAndFieldsAreBadRequests() async throws {
    let bodies = [
      "", "not json", "[]", "\"text\"", #"{"clientMessageId":"\#(Self.key)"}"#,
      #"{"clientMessageId":"\#(Self.key)","text":5}"#,
      #"{"clientMessageId":"not-a-uuid","text":"hi"}"#,
      #"{"clientMessageId":42,"text":"hi"}"#,
      #"{"text":"hi"}"#,
      #"{"clientMessageId":"\#(Self.key)","text":"hi","text":"again"}"#,
      #"{"clientMessageId":"\#(Self.key)","text":"hi",}"#,
    ]
    for body in bodies {
      let response = await server.request(
        "POST", messagesPath, token: alice.accessToken, body: body)
      expect(response, 400, "bad_request")
    }
    let invalidUTF8 = await server.request(
      "POST", messagesPath, token: alice.accessToken,
      bytes: Array(#"{"clientMessageId":"\#(Self.key)","text":""#.utf8) + [0xFF, 0x22, 0x7D])
    expect(invalidUTF8, 400, "bad_request")
    for body in [
      #"{"upToSequence":"3"}"#, #"{"upToSequence":1.5}"#, #"{}"#, #"{"upToSequence":null}"#,
    ] {
      let response = await server.request(
        "POST", "/v1/conversations/\(conversation)/read", token: alice.accessToken, body: body)
      expect(response, 400, "bad_request")
    }
    for body in [
      #"{"memberIds":"bob"}"#, #"{"title":"x"}"#, #"{"memberIds":["Bob"]}"#, #"{"memberIds":[1]}"#,
      #"{"memberIds":[],"title":3}"#,
    ] {
      let response = await server.request(
        "POST", "/v1/conversations", token: alice.accessToken, body: body)
      expect(response, 400, "bad_request")
    }
  }

  @Test func outOfRangeNumbersAreInvalid() async throws {
    for query: QueryItems in [
      ["limit": "0"], ["limit": "201"], ["limit": "-1"], ["before": "-1"], ["after": "-5"],
      ["before": "3", "after": "1"], ["limit": "99999999999999999999999"],
      ["after": "99999999999999999999"], ["before": "99999999999999999999"],
      ["after": "-99999999999999999999"],
    ] {
      let response = await server.messages(in: conversation, as: alice, query: query)
      expect(response, 422, "invalid")
    }
    for query: QueryItems in [
      ["limit": "1.5"], ["limit": ""], ["before": "x"], ["after": "+1"], ["limit": " 5"],
    ] {
      let response = await server.messages(in: conversation, as: alice, query: query)
      expect(response, 400, "bad_request")
    }
    for sequence in ["-1", "1", "1e30", "-1e30"] {
      let response = await server.request(
        "POST", "/v1/conversations/\(conversation)/delivered", token: alice.accessToken,
        body: #"{"upToSequence":\#(sequence)}"#)
      expect(response, 422, "invalid")
    }
  }

  /// A number too large for 64 bits is a number out of range: 422, and still after the 404
  /// of a conversation the caller is not in.
  @Test func aSequenceTooLargeForAnyIntegerIsInvalidAfterNotFound() async throws {
    for name in ["after", "before"] {
      let query: QueryItems = [name: "99999999999999999999"]
      expect(await server.messages(in: conversation, as: alice, query: query), 422, "invalid")
      expect(await server.messages(in: conversation, as: carol, query: query), 404, "not_found")
    }
  }

  /// API.md: `q` is 1–200 characters, so an empty one is out of range (422); no `q` at all is
  /// a missing field (400).
  @Test func anEmptySearchIsInvalidAndAMissingOneIsABadRequest() async throws {
    expect(
      await server.request("GET", "/v1/search", query: ["q": ""], token: alice.accessToken), 422,
      "invalid")
    expect(await server.request("GET", "/v1/search", token: alice.accessToken), 400, "bad_request")
  }

  /// A byte count below 1 is a number out of range (422), ranked after a malformed SHA-256
  /// (400).
  @Test func anEmptyUploadIsInvalidAfterEveryBadRequest() async throws {
    let server = try TestServer(media: MemoryMediaStorage())
    let alice = try await server.login("alice")
    let sha = String(repeating: "a", count: 64)
    for byteCount in [0, -1] {
      let body = try TestJSON.encode([
        "kind": "image", "contentType": "image/png", "byteCount": byteCount, "sha256": sha,
      ])
      expect(
        await server.request("POST", "/v1/media/uploads", token: alice.accessToken, body: body),
        422, "invalid")
    }
    let malformed = try TestJSON.encode([
      "kind": "image", "contentType": "image/png", "byteCount": 0, "sha256": "abc",
    ])
    expect(
      await server.request("POST", "/v1/media/uploads", token: alice.accessToken, body: malformed),
      400, "bad_request")
  }

  @Test func conflictIsLast() async throws {
    _ = try await server.send("first", to: conversation, as: alice, clientMessageId: Self.key)
    let response = try await server.send(
      "second", to: conversation, as: alice, clientMessageId: Self.key)
    expect(response, 409, "conflict")
  }
}
