import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Pins", on the device: my pin shows in the conversation's `pinned` at once
/// and goes through the outbox in order; undone while unsent it posts nothing; a 422 that says
/// it changes nothing is dropped; others' pins and a delete's unpin reach every device.
@Suite(.timeLimit(.minutes(3)))
struct EnginePinTests {
  private func serverPins(_ p: Pair) async throws -> [String] {
    try await p.world.conversationItem(p.chat, as: "bob").pinned?.map(\.clientMessageId) ?? []
  }

  private func summary(_ device: TestDevice, _ p: Pair) -> Probe<ConversationSummary?> {
    Probe(device.list.conversation(p.chat), on: p.world.executor)
  }

  @Test func myPinShowsAtOnceOfflineAndReachesEveryDeviceWhenOnline() async throws {
    let p = try await Pair.make()
    let lunch = try await p.bobsMessage()
    let alices = summary(p.alice, p)
    let bobs = summary(p.bob, p)
    p.alice.network.isOnline = false
    try await p.alice.messages.pin(lunch, in: p.chat, remove: false)
    await p.world.settle()
    #expect(
      alices.latest??.pinned == [
        Pin(id: lunch, sequence: 1, text: "lunch?", senderID: UserID("bob"))
      ])
    let entries = Probe(p.alice.engine.outboxQueue.entries(), on: p.world.executor)
    await p.world.settle()
    #expect(entries.latest?.map(\.kind) == [.pin])
    #expect(entries.latest?.map(\.text) == [OutboxEntry.pinMark])
    #expect(try await serverPins(p) == [])
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(try await serverPins(p) == [lunch.rawValue])
    #expect(await p.alice.engine.outboxCount() == 0)
    #expect(alices.latest??.pinned.map(\.id) == [lunch])
    // Bob's device hears of it from the pin item on its socket.
    #expect(
      bobs.latest??.pinned == [Pin(id: lunch, sequence: 1, text: "lunch?", senderID: UserID("bob"))]
    )
    await p.close()
  }

  @Test func aPinUndoneWhileUnsentPostsNothing() async throws {
    let p = try await Pair.make()
    let lunch = try await p.bobsMessage()
    let alices = summary(p.alice, p)
    p.alice.network.isOnline = false
    try await p.alice.messages.pin(lunch, in: p.chat, remove: false)
    try await p.alice.messages.pin(lunch, in: p.chat, remove: true)
    // Unpinning what is not pinned changes nothing either.
    try await p.alice.messages.pin(lunch, in: p.chat, remove: true)
    await p.world.settle()
    #expect(alices.latest??.pinned == [])
    #expect(await p.alice.engine.outboxCount() == 0)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.isEmpty)
    await p.close()
  }

  @Test func aPinThatChangesNothingOnTheServerIsDroppedWithoutAFailure() async throws {
    let p = try await Pair.make()
    let lunch = try await p.bobsMessage()
    let alices = summary(p.alice, p)
    p.alice.network.isOnline = false
    await p.world.settle()
    // Bob pins it while alice's device is offline and has not heard of it.
    #expect(try await p.world.pin(lunch.rawValue, in: p.chat, as: "bob") == 201)
    try await p.alice.messages.pin(lunch, in: p.chat, remove: false)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.advance(by: .seconds(1))
    #expect(p.alice.network.deliveredPosts.map(\.kind) == [.pin])
    #expect(await p.alice.engine.outboxCount() == 0)
    #expect(alices.latest??.pinned.map(\.id) == [lunch])
    await p.close()
  }

  @Test func anEleventhPinIsRefusedHereAndADeleteUnpinsOnEveryDevice() async throws {
    let p = try await Pair.make()
    var messages: [MessageID] = []
    for n in 1...11 { messages.append(try await p.bobsMessage("m\(n)")) }
    for id in messages.prefix(10) {
      #expect(try await p.world.pin(id.rawValue, in: p.chat, as: "bob") == 201)
    }
    await p.world.settle()
    let alices = summary(p.alice, p)
    await p.world.settle()
    #expect(alices.latest??.pinned.map(\.id) == messages.prefix(10).reversed())
    await #expect(throws: ChatError.invalidInput("a conversation has at most 10 pinned messages")) {
      try await p.alice.messages.pin(messages[10], in: p.chat, remove: false)
    }
    #expect(await p.alice.engine.outboxCount() == 0)
    #expect(try await p.world.delete(messages[9].rawValue, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(alices.latest??.pinned.map(\.id) == messages.prefix(9).reversed())
    try await p.alice.messages.pin(messages[10], in: p.chat, remove: false)
    await p.world.settle()
    #expect(try await serverPins(p).first == messages[10].rawValue)
    await p.close()
  }

  @Test func aPinIsOfAMessageThatIsHereAndStands() async throws {
    let p = try await Pair.make()
    let lunch = try await p.bobsMessage()
    let unknown = try #require(MessageID(rawValue: UUID().uuidString.lowercased()))
    await #expect(throws: ChatError.self) {
      try await p.alice.messages.pin(unknown, in: p.chat, remove: false)
    }
    #expect(try await p.world.delete(lunch.rawValue, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    await #expect(throws: ChatError.invalidInput("the message was deleted")) {
      try await p.alice.messages.pin(lunch, in: p.chat, remove: false)
    }
    await p.close()
  }
}
