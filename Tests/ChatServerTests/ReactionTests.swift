import ChatAPI
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// API.md Part 3, "Reactions": a reaction is an item of its own, the message carries its
/// reactions in their current state, and each rule that refuses one is a 422.
@Suite struct ReactionTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String
  static let message = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6b01"

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
    let sent = try await server.send(
      "Lunch at one?", to: conversation, as: alice, clientMessageId: Self.message)
    #expect(sent.status == 201)
  }

  private func react(
    _ emoji: Any?, remove: Bool? = nil, target: String = message, as session: Session,
    key: String = UUID().uuidString
  ) async throws -> TestResponse {
    var body: [String: Any] = ["clientMessageId": key, "kind": "reaction", "target": target]
    if let emoji { body["emoji"] = emoji }
    if let remove { body["remove"] = remove }
    return await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: session.accessToken,
      body: try TestJSON.encode(body))
  }

  /// The message's `reactions` as [emoji: userIds], in order, read as `session`.
  private func reactions(as session: Session) async throws -> [(String, [String])] {
    let page = await server.messages(in: conversation, as: session)
    let message = try #require(
      page.items.first { $0["clientMessageId"] as? String == Self.message })
    let groups = try #require(message["reactions"] as? [[String: Any]])
    return groups.map { ($0["emoji"] as? String ?? "?", $0["userIds"] as? [String] ?? []) }
  }

  @Test func aReactionIsAnItemOfItsOwnAndTheMessageCarriesTheReactions() async throws {
    let thumbs = try await react("👍", as: bob)
    #expect(thumbs.status == 201)
    #expect(thumbs.object["kind"] as? String == "reaction")
    #expect(thumbs.object["target"] as? String == Self.message)
    #expect(thumbs.object["emoji"] as? String == "👍")
    #expect(thumbs.object["remove"] as? Bool == false)
    #expect(thumbs.object["text"] as? String == "")
    #expect(thumbs.object["sequence"] as? Int == 2)
    #expect(try await react("❤️", as: alice).status == 201)
    #expect(try await react("👍", as: alice).status == 201)
    let seen = try await reactions(as: bob)
    #expect(seen.map(\.0) == ["👍", "❤️"])
    #expect(seen.map(\.1) == [["bob", "alice"], ["alice"]])
    // Every item of the log, the reactions included, in order; a message with none has [].
    let page = await server.messages(in: conversation, as: alice)
    #expect(page.sequences == [1, 2, 3, 4])
    #expect(page.items.dropFirst().allSatisfy { $0["kind"] as? String == "reaction" })
  }

  @Test func takingAReactionBackRemovesItAndTheEmojiWhenNoOneIsLeft() async throws {
    #expect(try await react("👍", as: bob).status == 201)
    #expect(try await react("🎉", as: bob).status == 201)
    let back = try await react("👍", remove: true, as: bob)
    #expect(back.status == 201)
    #expect(back.object["remove"] as? Bool == true)
    #expect(try await reactions(as: alice).map(\.0) == ["🎉"])
    // Back again: at the end now, as it came after 🎉.
    #expect(try await react("👍", as: bob).status == 201)
    #expect(try await reactions(as: alice).map(\.0) == ["🎉", "👍"])
  }

  @Test func aReactionThatChangesNothingIs422() async throws {
    #expect(try await react("👍", as: bob).status == 201)
    let again = try await react("👍", as: bob)
    #expect(again.status == 422 && again.errorCode == "invalid")
    let notMine = try await react("❤️", remove: true, as: bob)
    #expect(notMine.status == 422)
    let othersOne = try await react("👍", remove: true, as: alice)
    #expect(othersOne.status == 422)
    #expect(try await reactions(as: alice).map(\.1) == [["bob"]])
  }

  @Test func aRetryIsAnsweredWithTheStoredReactionAndAnotherBodyIs409() async throws {
    let key = UUID().uuidString
    let first = try await react("👍", as: bob, key: key)
    #expect(first.status == 201)
    let retry = try await react("👍", as: bob, key: key)
    #expect(retry.status == 200)
    #expect(retry.object["sequence"] as? Int == first.object["sequence"] as? Int)
    let other = try await react("❤️", as: bob, key: key)
    #expect(other.status == 409)
    #expect(try await reactions(as: alice).map(\.0) == ["👍"])
  }

  @Test func twentyDistinctEmojiFitOnAMessageAndTheTwentyFirstIs422() async throws {
    let emoji = Array("😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙😚🙂🤗🤩").map(String.init)
    for one in emoji.prefix(20) { #expect(try await react(one, as: bob).status == 201) }
    let twentyFirst = try await react(emoji[20], as: alice)
    #expect(twentyFirst.status == 422)
    #expect(try await react(emoji[0], as: alice).status == 201, "an emoji already there")
  }

  @Test(arguments: ["ok", "👍👍", "", "👍\u{FE0F}" + String(repeating: "\u{0301}", count: 13)])
  func whatIsNotOneEmojiIs422(_ emoji: String) async throws {
    let refused = try await react(emoji, as: bob)
    #expect(refused.status == 422 && refused.errorCode == "invalid")
  }

  @Test func aReactionWithoutEmojiOrWithTextIs400() async throws {
    #expect(try await react(nil, as: bob).status == 400)
    #expect(try await react(7, as: bob).status == 400)
    let withText = await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: bob.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString, "kind": "reaction", "target": Self.message,
        "emoji": "👍", "text": "hi",
      ]))
    #expect(withText.status == 400)
    let emojiOnAMessage = await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: bob.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString, "text": "hi", "emoji": "👍",
      ]))
    #expect(emojiOnAMessage.status == 400)
  }

  @Test func aDeletedMessageLosesItsReactionsAndTakesNoMore() async throws {
    #expect(try await react("👍", as: bob).status == 201)
    let deleted = try await server.post(
      ["clientMessageId": UUID().uuidString, "kind": "delete", "target": Self.message],
      to: conversation, as: alice)
    #expect(deleted.status == 201)
    #expect(try await reactions(as: bob).isEmpty)
    let late = try await react("❤️", as: bob)
    #expect(late.status == 422)
  }

  @Test func theTargetMustBeAMessageOfThisConversationTheCallerCanSee() async throws {
    let unknown = try await react("👍", target: UUID().uuidString, as: bob)
    #expect(unknown.status == 422)
    // dave joins after the message: he cannot see it, so he cannot react to it.
    let added = await server.request(
      "POST", "/v1/conversations/\(conversation)/members", token: alice.accessToken,
      body: try TestJSON.encode(["clientMessageId": UUID().uuidString, "add": ["dave"]]))
    #expect(added.status == 201)
    let dave = try await server.login("dave")
    let unseen = try await react("👍", as: dave)
    #expect(unseen.status == 422)
    // A reaction is not a message: reacting to one is refused too.
    let reaction = try await react("👍", as: bob)
    let onReaction = try await react(
      "❤️", target: try #require(reaction.object["clientMessageId"] as? String), as: alice)
    #expect(onReaction.status == 422)
  }

  @Test func aNonMemberGets404BeforeAnyRuleOfTheReaction() async throws {
    let carol = try await server.login("carol")
    #expect(try await react("not an emoji", as: carol).status == 404)
  }

  @Test func aReactionIsNoNewActivityTheListKeepsTheMessageLast() async throws {
    #expect(try await react("👍", as: bob).status == 201)
    let list = await server.request("GET", "/v1/conversations", token: alice.accessToken)
    let item = try #require(list.items.first)
    #expect(item["lastSequence"] as? Int == 2)
    let last = try #require(item["lastMessage"] as? [String: Any])
    #expect(last["sequence"] as? Int == 1)
    #expect((last["reactions"] as? [[String: Any]])?.count == 1)
  }
}
