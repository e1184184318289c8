import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Replies", on the device: my reply quotes the message it answers at once,
/// offline too; every quote shows the answered message as it is now (edited, deleted), and a
/// reader who cannot see it gets no quote at all.
@Suite(.timeLimit(.minutes(3)))
struct EngineReplyTests {
  private func quote(_ text: String, by sender: String, _ sequence: Int?, deleted: Bool = false)
    -> QuotedMessage.Quote
  {
    QuotedMessage.Quote(
      senderID: UserID(sender), sequence: sequence, text: text, mediaKind: nil,
      isDeleted: deleted)
  }

  @Test func myReplyQuotesTheMessageAtOnceOfflineAndEveryDeviceShowsTheSameQuote() async throws {
    let p = try await Pair.make()
    let alices = p.watch(p.alice)
    let bobs = p.watch(p.bob)
    let lunch = try await p.bob.messages.send("lunch at noon?", in: p.chat)
    await p.world.settle()
    p.alice.network.isOnline = false
    let reply = try await p.alice.messages.reply("yes!", to: lunch, in: p.chat)
    await p.world.settle()
    let shown = try #require(alices.latest?.last)
    #expect(shown.id == reply)
    #expect(shown.send == .sending)
    #expect(shown.replyTo == QuotedMessage(id: lunch, quote: quote("lunch at noon?", by: "bob", 1)))
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.map(\.replyTo) == [lunch.rawValue])
    let log = try await p.world.serverLog(p.chat, as: "bob")
    #expect(log.last?.replyTo?.clientMessageId == lunch.rawValue)
    #expect(log.last?.replyTo?.quote?.text == "lunch at noon?")
    #expect(bobs.latest?.last?.replyTo == alices.latest?.last?.replyTo)
    #expect(alices.latest?.last?.send == .sent)
    await p.close()
  }

  @Test func aQuoteShowsTheAnsweredMessageAsItIsNowEditedThenDeleted() async throws {
    let p = try await Pair.make()
    let alices = p.watch(p.alice)
    let bobs = p.watch(p.bob)
    let lunch = try await p.bob.messages.send("lunch at noon?", in: p.chat)
    await p.world.settle()
    let reply = try await p.alice.messages.reply("yes!", to: lunch, in: p.chat)
    await p.world.settle()
    try await p.bob.messages.edit(lunch, in: p.chat, to: "lunch at one?")
    await p.world.settle()
    for screen in [alices, bobs] {
      #expect(
        screen.latest?.first { $0.id == reply }?.replyTo?.quote
          == quote("lunch at one?", by: "bob", 1))
    }
    try await p.bob.messages.delete(lunch, in: p.chat)
    await p.world.settle()
    for screen in [alices, bobs] {
      #expect(
        screen.latest?.first { $0.id == reply }?.replyTo?.quote
          == quote("", by: "bob", 1, deleted: true))
    }
    let log = try await p.world.serverLog(p.chat, as: "alice")
    #expect(log.first { $0.clientMessageId == reply.rawValue }?.replyTo?.quote?.deleted == true)
    await #expect(throws: ChatError.invalidInput("the message was deleted")) {
      try await p.alice.messages.reply("too late", to: lunch, in: p.chat)
    }
    await p.close()
  }

  @Test func aMemberAddedLaterSeesTheReplyButNothingOfWhatItAnswers() async throws {
    let p = try await Pair.make()
    let carol = try await p.world.device("carol", seed: 6)
    await carol.engine.start()
    let group = try await p.alice.list.createConversation(
      title: "Trio", memberIDs: [UserID("bob")])
    await p.world.settle()
    let secret = try await p.bob.messages.send("the surprise is on friday", in: group)
    await p.world.settle()
    try await p.alice.list.changeMembers(in: group, add: [UserID("carol")], remove: [])
    await p.world.settle()
    let reply = try await p.alice.messages.reply("great, I'll bring cake", to: secret, in: group)
    await p.world.settle()
    let carols = p.watch(carol, group)
    await p.world.settle()
    let shown = try #require(carols.latest?.first { $0.id == reply })
    #expect(shown.replyTo == QuotedMessage(id: secret, quote: nil))
    #expect(carols.latest?.contains { $0.text.contains("surprise") } == false)
    await carol.engine.close()
    await p.close()
  }

  @Test func aReplyAnswersAMessageThatIsHere() async throws {
    let p = try await Pair.make()
    let elsewhere = try #require(MessageID(rawValue: UUID().uuidString.lowercased()))
    await #expect(throws: ChatError.notFound("no message \(elsewhere) in conversation \(p.chat)")) {
      try await p.alice.messages.reply("what?", to: elsewhere, in: p.chat)
    }
    let lunch = try await p.bob.messages.send("lunch?", in: p.chat)
    await p.world.settle()
    await #expect(throws: ChatError.self) {
      try await p.alice.messages.reply("   ", to: lunch, in: p.chat)
    }
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }
}
