import ChatAPI
import ChatDataInspection
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

/// The rules the simulation found for a forward on its way (seeds 10 and 54).
@Suite(.timeLimit(.minutes(3)))
struct EngineForwardOnItsWayTests {
  /// Alice's conversation with carol, and bob's message in the pair's, held by alice.
  private func setUp() async throws -> (Pair, ConversationID, MessageID) {
    let p = try await Pair.make()
    let trip = try await p.alice.list.createConversation(
      title: "Trip", memberIDs: [UserID("carol")])
    let lunch = try await p.bobsMessage("lunch at noon?")
    return (p, trip, lunch)
  }

  @Test func myForwardTakesTheServersTextWhenAnswered() async throws {
    let (p, trip, lunch) = try await setUp()
    p.alice.network.isOnline = false
    let forward = try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    // Bob edits it before alice's forward reaches the server: the server copies the edit.
    #expect(
      try await p.world.edit(lunch.rawValue, to: "lunch at one?", in: p.chat, as: "bob") == 201)
    let alices = p.watch(p.alice, trip)
    await p.world.settle()
    #expect(alices.latest?.first { $0.id == forward }?.text == "lunch at noon?")
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(try await p.world.serverLog(trip, as: "carol").last?.text == "lunch at one?")
    #expect(alices.latest?.first { $0.id == forward }?.text == "lunch at one?")
    await p.close()
  }

  @Test func anEditOfMyUnsentForwardFollowsItAsAnEdit() async throws {
    let (p, trip, lunch) = try await setUp()
    p.alice.network.isOnline = false
    let forward = try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    try await p.alice.messages.edit(forward, in: trip, to: "lunch? I'm in")
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    let posted = p.alice.network.deliveredPosts.suffix(2)
    #expect(posted.map(\.kind) == [nil, .edit])
    let served = try await p.world.serverLog(trip, as: "carol").filter { $0.kind == "message" }
    #expect(served.last?.text == "lunch? I'm in" && served.last?.forwarded == true)
    await p.close()
  }

  @Test func myUnsentForwardGoesWhenItsSourcesDeleteArrives() async throws {
    let (p, trip, lunch) = try await setUp()
    let alices = p.watch(p.alice, trip)
    // Its post fails for now (it waits out a backoff) while the socket still hears the delete.
    p.alice.network.failNext(1, with: .status(503), where: .sends)
    let forward = try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    await p.world.settle()
    #expect(alices.latest?.contains { $0.id == forward } == true)
    // My edit of it follows it in the queue: it goes with it.
    try await p.alice.messages.edit(forward, in: trip, to: "lunch? I'm in")
    #expect(alices.latest?.first { $0.id == forward }?.send == .sending)
    #expect(try await p.world.delete(lunch.rawValue, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(alices.latest?.contains { $0.id == forward } == false)
    #expect(try await p.alice.engine.heldMessages().contains { $0.messageID == forward } == false)
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aForwardRefusedBecauseItsSourceWasDeletedIsDropped() async throws {
    let (p, trip, lunch) = try await setUp()
    p.alice.network.isOnline = false
    let forward = try await p.alice.messages.forward(lunch, from: p.chat, to: trip)
    // The delete reaches the server while alice's device hears nothing of it.
    #expect(try await p.world.delete(lunch.rawValue, in: p.chat, as: "bob") == 201)
    let alices = p.watch(p.alice, trip)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(alices.latest?.contains { $0.id == forward } == false)
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }
}

extension EngineForwardOnItsWayTests {
  /// Simulation seed 949: my delete the server refuses leaves the message alive, and my
  /// unsent forward of it with it (the message refetched found my delete still queued).
  @Test func myUnsentForwardSurvivesMyDeleteTheServerRefuses() async throws {
    let p = try await Pair.make()
    let trip = try await p.alice.list.createConversation(
      title: "Trip", memberIDs: [UserID("carol")])
    let mine = try await p.alice.messages.send("my view", in: p.chat)
    await p.world.settle()
    let inTrip = RequestMatch { $0.path.contains(trip.rawValue) }
    let inChat = RequestMatch { $0.path.contains(p.chat.rawValue) }
    p.alice.network.failNext(1, with: .status(503), where: inTrip)
    let forward = try await p.alice.messages.forward(mine, from: p.chat, to: trip)
    await p.world.settle()
    p.alice.network.failNext(1, with: .status(422), where: inChat)
    try await p.alice.messages.delete(mine, in: p.chat)
    await p.world.settle()
    #expect(
      try await p.world.serverLog(p.chat, as: "bob").contains { $0.kind == "delete" } == false)
    await p.world.advance(by: .seconds(120))
    let served = try await p.world.serverLog(trip, as: "alice").last
    #expect(served?.clientMessageId == forward.rawValue && served?.text == "my view")
    await p.close()
  }
}

extension EngineForwardOnItsWayTests {
  /// I forward my message, then delete it where it was, both offline: the delete waits for the
  /// forward (queued in another conversation), so the server takes the forward before the
  /// delete that would make it refuse it.
  @Test func myDeleteOfAMessageIForwardedWaitsForTheForward() async throws {
    let p = try await Pair.make()
    let trip = try await p.alice.list.createConversation(
      title: "Trip", memberIDs: [UserID("carol")])
    let mine = try await p.alice.messages.send("my view", in: p.chat)
    await p.world.settle()
    p.alice.network.failNext(
      1, with: .status(503), where: RequestMatch { $0.path.contains(trip.rawValue) })
    let forward = try await p.alice.messages.forward(mine, from: p.chat, to: trip)
    try await p.alice.messages.delete(mine, in: p.chat)
    await p.world.settle()
    #expect(
      try await p.world.serverLog(p.chat, as: "bob").contains { $0.kind == "delete" } == false)
    await p.world.advance(by: .seconds(120))
    let served = try await p.world.serverLog(trip, as: "alice").last
    #expect(served?.clientMessageId == forward.rawValue && served?.text == "my view")
    #expect(try await p.world.serverLog(p.chat, as: "bob").contains { $0.kind == "delete" })
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }
}
