import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct MessageTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  static let key = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"

  @Test func aMessageIsStoredWithTheFullShapeAndTheFirstSequence() async throws {
    let response = try await server.send(
      "On my way", to: conversation, as: alice, clientMessageId: Self.key)
    #expect(response.status == 201)
    #expect(response.header("Content-Type") == "application/json; charset=utf-8")
    let message = response.object
    #expect(
      Set(message.keys) == [
        "id", "clientMessageId", "conversationId", "senderId", "text", "sequence", "sentAt",
        "kind", "media", "editedAt", "deleted", "target", "added", "removed", "title",
        "reactions", "replyTo", "mentions", "forwarded",
      ])
    #expect(message["kind"] as? String == "message")
    #expect(message["deleted"] as? Bool == false)
    #expect(message["editedAt"] is NSNull && message["target"] is NSNull)
    #expect(message["clientMessageId"] as? String == Self.key)
    #expect(message["conversationId"] as? String == conversation)
    #expect(message["senderId"] as? String == "alice")
    #expect(message["text"] as? String == "On my way")
    #expect(message["sequence"] as? Int == 1)
    #expect(message["sentAt"] as? String == server.clock.now().rfc3339)
  }

  @Test func aRetryWithTheSameKeyAndTextGetsTheStoredMessage() async throws {
    let first = try await server.send(
      "hello", to: conversation, as: alice, clientMessageId: Self.key)
    _ = try await server.send("in between", to: conversation, as: bob)
    server.clock.advance(by: .seconds(30))
    let retry = try await server.send(
      "hello", to: conversation, as: alice, clientMessageId: Self.key)
    #expect(first.status == 201)
    #expect(retry.status == 200)
    #expect(retry.body == first.body)
    #expect(try await server.rows("SELECT count(*) FROM messages") == [[.integer(2)]])
  }

  @Test func theSameKeyWithAnotherTextIsAConflict() async throws {
    _ = try await server.send("hello", to: conversation, as: alice, clientMessageId: Self.key)
    let conflict = try await server.send(
      "hullo", to: conversation, as: alice, clientMessageId: Self.key)
    #expect(conflict.status == 409)
  }

  @Test func textsAreComparedByTheirUTF8BytesNotByCanonicalEquivalence() async throws {
    // "é" precomposed (U+00E9) and decomposed (e + U+0301): equal as Swift Strings.
    #expect("\u{E9}" == "e\u{301}")
    let path = "/v1/conversations/\(conversation)/messages"
    let composed = #"{"clientMessageId":"\#(Self.key)","text":"caf\u00e9"}"#
    let decomposed = #"{"clientMessageId":"\#(Self.key)","text":"cafe\u0301"}"#
    let first = await server.request("POST", path, token: alice.accessToken, body: composed)
    let second = await server.request("POST", path, token: alice.accessToken, body: decomposed)
    let again = await server.request("POST", path, token: alice.accessToken, body: composed)
    #expect(first.status == 201)
    #expect(second.status == 409)
    #expect(again.status == 200)
    let stored = try await server.rows("SELECT hex(text) FROM messages")
    #expect(stored == [[.text("636166C3A9")]])
  }

  @Test func twoSendersWithTheSameKeyGetTwoMessages() async throws {
    let fromAlice = try await server.send(
      "hi", to: conversation, as: alice, clientMessageId: Self.key)
    let fromBob = try await server.send("hi", to: conversation, as: bob, clientMessageId: Self.key)
    #expect(fromAlice.status == 201)
    #expect(fromBob.status == 201)
    #expect(fromAlice.object["sequence"] as? Int == 1)
    #expect(fromBob.object["sequence"] as? Int == 2)
  }

  @Test func theKeyIgnoresTheUUIDsLetterCaseAndTheFirstSpellingIsKept() async throws {
    let upper = Self.key.uppercased()
    let first = try await server.send("hi", to: conversation, as: alice, clientMessageId: upper)
    let retry = try await server.send("hi", to: conversation, as: alice, clientMessageId: Self.key)
    #expect(first.status == 201)
    #expect(first.object["clientMessageId"] as? String == upper)
    #expect(retry.status == 200)
    #expect(retry.object["clientMessageId"] as? String == upper)
    #expect(retry.object["sequence"] as? Int == 1)
  }

  @Test func aConversationIdIsAcceptedInEitherCase() async throws {
    _ = try await server.send("hi", to: conversation, as: alice)
    let page = await server.messages(in: conversation.uppercased(), as: bob)
    #expect(page.status == 200)
    #expect(page.sequences == [1])
    #expect(page.items.first?["conversationId"] as? String == conversation)
  }

  @Test func textLimitCountsUnicodeScalarsNotCharacters() async throws {
    #expect(
      try await server.send(String(repeating: "a", count: 4_096), to: conversation, as: alice)
        .status == 201)
    #expect(
      try await server.send(String(repeating: "a", count: 4_097), to: conversation, as: alice)
        .status == 413)
    // 👍🏽 is one Character but two scalars: 2,048 of them are 4,096 scalars.
    let thumbs = "\u{1F44D}\u{1F3FD}"
    #expect(
      try await server.send(String(repeating: thumbs, count: 2_048), to: conversation, as: alice)
        .status == 201)
    #expect(
      try await server.send(String(repeating: thumbs, count: 2_049), to: conversation, as: alice)
        .status == 413)
  }

  @Test func emptyTextIsInvalidButWhitespaceIsText() async throws {
    #expect(try await server.send("", to: conversation, as: alice).status == 422)
    #expect(try await server.send(" ", to: conversation, as: alice).status == 201)
  }

  @Test func aBodyOverTheLimitIsTooLarge() async throws {
    let path = "/v1/conversations/\(conversation)/messages"
    let atLimit = #"{"clientMessageId":"\#(Self.key)","text":"hi"}"#
      .padding(toLength: 64 * 1024, withPad: " ", startingAt: 0)
    #expect(
      await server.request("POST", path, token: alice.accessToken, body: atLimit).status == 201)
    let over = atLimit + " "
    let response = await server.request("POST", path, token: alice.accessToken, body: over)
    #expect(response.status == 413)
    #expect(response.errorCode == "too_large")
  }

  @Test func textKeepsEveryByteThroughStorageAndJSON() async throws {
    let tricky = "line\nbreak \"quoted\" back\\slash tab\t nul\u{0} bell\u{7} 🇸🇪 e\u{301} \u{2028}"
    let sent = try await server.send(tricky, to: conversation, as: alice)
    #expect(sent.status == 201)
    let page = await server.messages(in: conversation, as: bob)
    let text = try #require(page.items.first?["text"] as? String)
    #expect(Array(text.utf8) == Array(tricky.utf8))
  }

  @Test func pagesAreAscendingWithHasMoreInBothDirections() async throws {
    for index in 1...120 {
      #expect(
        try await server.send("m\(index)", to: conversation, as: index % 2 == 0 ? alice : bob)
          .status == 201)
    }
    func page(_ query: QueryItems) async -> (sequences: [Int], hasMore: Bool?) {
      let response = await server.messages(in: conversation, as: alice, query: query)
      #expect(response.status == 200)
      return (response.sequences, response.hasMore)
    }
    let newest = await page([:])
    #expect(newest.sequences == Array(71...120))
    #expect(newest.hasMore == true)
    let older = await page(["before": "71"])
    #expect(older.sequences == Array(21...70))
    #expect(older.hasMore == true)
    let oldest = await page(["before": "21"])
    #expect(oldest.sequences == Array(1...20))
    #expect(oldest.hasMore == false)
    #expect(await page(["before": "1"]) == ([], false))
    #expect(await page(["before": "0"]) == ([], false))
    let first = await page(["after": "0", "limit": "50"])
    #expect(first.sequences == Array(1...50))
    #expect(first.hasMore == true)
    let tail = await page(["after": "100"])
    #expect(tail.sequences == Array(101...120))
    #expect(tail.hasMore == false)
    #expect(await page(["after": "120"]) == ([], false))
    #expect(await page(["after": "119", "limit": "1"]) == ([120], false))
    #expect(await page(["after": "118", "limit": "1"]) == ([119], true))
    #expect(await page(["limit": "1"]) == ([120], true))
    #expect(await page(["limit": "200"]).sequences == Array(1...120))
    #expect(await page(["limit": "200"]).hasMore == false)
    #expect(await page(["before": "1000", "limit": "3"]) == ([118, 119, 120], true))
  }

  @Test func anEmptyConversationHasAnEmptyPage() async throws {
    let response = await server.messages(in: conversation, as: alice)
    #expect(response.status == 200)
    #expect(response.items.isEmpty)
    #expect(response.hasMore == false)
  }
}
