import ChatAPI
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// API.md Part 3, "Replies, and opening at a message": a reply's quote shows its target's
/// current state, is null for a reader who cannot see the target, and `around` pages open
/// a conversation at any message.
@Suite struct ReplyTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String
  static let question = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6c01"

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
    let sent = try await server.send(
      "Lunch at one? " + String(repeating: "x", count: 120), to: conversation, as: alice,
      clientMessageId: Self.question)
    #expect(sent.status == 201)
  }

  private func reply(
    _ text: String, to target: String = question, as session: Session,
    key: String = UUID().uuidString
  ) async throws -> TestResponse {
    try await server.post(
      ["clientMessageId": key, "text": text, "replyTo": target], to: conversation, as: session)
  }

  private func quote(in item: [String: Any]) -> [String: Any]? {
    (item["replyTo"] as? [String: Any])?["quote"] as? [String: Any]
  }

  /// SQLite's `substr` stops at a NUL; a quote is the first 100 scalars, a NUL among them
  /// (simulation seed 3 of issue 35).
  @Test func aQuoteKeepsANulOfItsMessage() async throws {
    let target = UUID().uuidString.lowercased()
    let text = "family 👩‍👩‍👧 \u{0} after"
    #expect(
      try await server.send(text, to: conversation, as: alice, clientMessageId: target).status
        == 201)
    let answer = try await reply("Yes!", to: target, as: bob)
    #expect(answer.status == 201)
    #expect(self.quote(in: answer.object)?["text"] as? String == text)
    let page = await server.messages(in: conversation, as: alice)
    let items = try #require(page.object["items"] as? [[String: Any]])
    #expect(items.last.flatMap { self.quote(in: $0) }?["text"] as? String == text)
  }

  @Test func aReplyCarriesAQuoteOfTheFirstHundredScalars() async throws {
    let answer = try await reply("Yes!", as: bob)
    #expect(answer.status == 201)
    let replyTo = try #require(answer.object["replyTo"] as? [String: Any])
    #expect(replyTo["clientMessageId"] as? String == Self.question)
    let quote = try #require(self.quote(in: answer.object))
    #expect(quote["senderId"] as? String == "alice")
    #expect(quote["sequence"] as? Int == 1)
    #expect((quote["text"] as? String)?.unicodeScalars.count == 100)
    #expect(quote["deleted"] as? Bool == false)
    #expect(quote["mediaKind"] is NSNull)
    // Every message carries Part 3's four fields; one that answers nothing has replyTo null.
    let page = await server.messages(in: conversation, as: alice)
    #expect(page.items.first?["replyTo"] is NSNull)
    #expect(page.items.first?["forwarded"] as? Bool == false)
    #expect(page.items.first?["mentions"] as? [String] == [])
  }

  @Test func theQuoteShowsTheTargetsCurrentState() async throws {
    #expect(try await reply("Yes!", as: bob).status == 201)
    let edited = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "edit", "target": Self.question,
        "text": "Lunch at two?",
      ], to: conversation, as: alice)
    #expect(edited.status == 201)
    var page = await server.messages(in: conversation, as: bob)
    #expect(quote(in: page.items[1])?["text"] as? String == "Lunch at two?")
    let deleted = try await server.post(
      ["clientMessageId": UUID().uuidString, "kind": "delete", "target": Self.question],
      to: conversation, as: alice)
    #expect(deleted.status == 201)
    page = await server.messages(in: conversation, as: bob)
    let shown = try #require(self.quote(in: page.items[1]))
    #expect(shown["deleted"] as? Bool == true && shown["text"] as? String == "")
  }

  @Test func aMemberAddedLaterGetsTheReplyWithoutItsQuoteLiveAndInPages() async throws {
    let added = await server.request(
      "POST", "/v1/conversations/\(conversation)/members", token: alice.accessToken,
      body: try TestJSON.encode(["clientMessageId": UUID().uuidString, "add": ["dave"]]))
    #expect(added.status == 201)
    let dave = try await server.login("dave")
    let daveLive = try await server.openLive(dave)
    let bobLive = try await server.openLive(bob)
    #expect(try await reply("Yes!", as: alice).status == 201)
    let page = await server.messages(in: conversation, as: dave)
    let seen = try #require(page.items.last)
    #expect((seen["replyTo"] as? [String: Any])?["clientMessageId"] as? String == Self.question)
    #expect((seen["replyTo"] as? [String: Any])?["quote"] is NSNull)
    let daveEvents = await server.drain(daveLive)
    let bobEvents = await server.drain(bobLive)
    func replyEvent(_ events: [[String: Any]]) -> [String: Any]? {
      events.compactMap { $0["message"] as? [String: Any] }.last { $0["replyTo"] != nil }
    }
    #expect((replyEvent(daveEvents)?["replyTo"] as? [String: Any])?["quote"] is NSNull)
    #expect(quote(in: try #require(replyEvent(bobEvents)))?["sequence"] as? Int == 1)
    // dave cannot answer what he cannot see.
    let blind = try await reply("what?", as: dave)
    #expect(blind.status == 422)
  }

  @Test func aReplyToNothingKnownIs422AndAMalformedOneIs400() async throws {
    #expect(try await reply("?", to: UUID().uuidString, as: bob).status == 422)
    #expect(try await reply("?", to: "not-a-uuid", as: bob).status == 400)
    let onAnEdit = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "edit", "target": Self.question,
        "text": "x", "replyTo": Self.question,
      ], to: conversation, as: alice)
    #expect(onAnEdit.status == 400)
  }

  @Test func aRetriedReplyIs200AndTheSameKeyAnsweringAnotherIs409() async throws {
    let key = UUID().uuidString
    #expect(try await reply("Yes!", as: bob, key: key).status == 201)
    #expect(try await reply("Yes!", as: bob, key: key).status == 200)
    let other = try await server.send("other", to: conversation, as: alice)
    let otherID = try #require(other.object["clientMessageId"] as? String)
    #expect(try await reply("Yes!", to: otherID, as: bob, key: key).status == 409)
  }

  @Test func aPageAroundAMessageAlternatesAndSaysWhatLiesBeyond() async throws {
    for n in 2...9 { _ = try await server.send("m\(n)", to: conversation, as: alice) }
    let page = await server.messages(
      in: conversation, as: bob, query: ["around": "5", "limit": "4"])
    #expect(page.status == 200)
    #expect(page.sequences == [3, 4, 5, 6])
    #expect(page.object["hasMoreBefore"] as? Bool == true)
    #expect(page.object["hasMoreAfter"] as? Bool == true)
    #expect(page.hasMore == true)
    let end = await server.messages(
      in: conversation, as: bob, query: ["around": "9", "limit": "4"])
    #expect(end.sequences == [6, 7, 8, 9])
    #expect(end.object["hasMoreAfter"] as? Bool == false)
    let start = await server.messages(
      in: conversation, as: bob, query: ["around": "1", "limit": "3"])
    #expect(start.sequences == [1, 2, 3])
    #expect(start.object["hasMoreBefore"] as? Bool == false)
  }

  @Test func aroundAnUnseenSequenceStartsAtTheNearestVisibleBelowAndRefusesBeforeOrAfter()
    async throws
  {
    for n in 2...4 { _ = try await server.send("m\(n)", to: conversation, as: alice) }
    let added = await server.request(
      "POST", "/v1/conversations/\(conversation)/members", token: alice.accessToken,
      body: try TestJSON.encode(["clientMessageId": UUID().uuidString, "add": ["dave"]]))
    #expect(added.object["sequence"] as? Int == 5)
    for n in 6...8 { _ = try await server.send("m\(n)", to: conversation, as: alice) }
    let dave = try await server.login("dave")
    let page = await server.messages(
      in: conversation, as: dave, query: ["around": "2", "limit": "3"])
    #expect(page.sequences == [5, 6, 7])
    #expect(page.object["hasMoreBefore"] as? Bool == false)
    let both = await server.messages(
      in: conversation, as: bob, query: ["around": "2", "before": "3"])
    #expect(both.status == 422)
  }
}
