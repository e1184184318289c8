import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Forwarding", on the device: a forward shows at once (offline too) with the
/// message's text, marked forwarded and mine; it goes through the outbox as `forwardOf` (no
/// text, nothing uploaded) and the server's copy reaches the other members marked forwarded.
@Suite(.timeLimit(.minutes(3)))
struct EngineForwardTests {
  @Test func aForwardMadeOfflineShowsAtOnceAndReachesTheOtherConversation() async throws {
    let p = try await Pair.make()
    let carol = try await p.world.device("carol", seed: 3)
    await carol.engine.start()
    let trip = try await p.alice.list.createConversation(
      title: "Trip", memberIDs: [UserID("carol")])
    let lunch = try await p.bobsMessage("lunch at noon?")
    let alices = p.watch(p.alice, trip)
    p.alice.network.isOnline = false
    let forward = try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    await p.world.settle()
    let shown = try #require(alices.latest?.first { $0.id == forward })
    #expect(
      shown.text == "lunch at noon?" && shown.isForwarded && shown.senderID == UserID("alice"))
    #expect(shown.send == .sending)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    let posted = try #require(p.alice.network.deliveredPosts.last)
    #expect(posted.text == nil && posted.media == nil)
    #expect(
      posted.forwardOf
        == ForwardOf(conversationId: p.chat.rawValue, clientMessageId: lunch.rawValue))
    let served = try await p.world.serverLog(trip, as: "carol").last
    #expect(served?.text == "lunch at noon?" && served?.forwarded == true)
    #expect(served?.senderId == "alice")
    #expect(alices.latest?.first { $0.id == forward }?.send == .sent)
    // Carol's device shows it forwarded, from alice, with nothing of bob.
    let carols = try await carol.engine.localMessages(in: trip)
    #expect(carols.last?.isForwarded == true && carols.last?.senderID == UserID("alice"))
    await carol.engine.close()
    await p.close()
  }

  @Test func aDeletedUnsentOrUnknownMessageIsNotForwarded() async throws {
    let p = try await Pair.make()
    let trip = try await p.alice.list.createConversation(
      title: "Trip", memberIDs: [UserID("carol")])
    let lunch = try await p.bobsMessage()
    #expect(try await p.world.delete(lunch.rawValue, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    await #expect(throws: ChatError.invalidInput("the message was deleted")) {
      try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    }
    p.alice.network.isOnline = false
    let unsent = try await p.alice.messages.send("mine", in: p.chat)
    await #expect(
      throws: ChatError.invalidInput("the message is not sent yet; forward it once it is")
    ) {
      try await p.alice.messages.forward(unsent, from: p.chat, to: trip)
    }
    let unknown = try #require(MessageID(rawValue: UUID().uuidString.lowercased()))
    await #expect(throws: ChatError.self) {
      try await p.alice.messages.forward(unknown, from: p.chat, to: trip)
    }
    await p.close()
  }
}
