import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Reactions", on the device: my reaction shows at once and goes through the
/// outbox in the conversation's order; toggled back while unsent it posts nothing; a 422 that
/// says it changes nothing is dropped, never a failure.
@Suite(.timeLimit(.minutes(3)))
struct EngineReactionTests {
  private func serverReactions(_ p: Pair, on id: MessageID) async throws -> [ReactionGroup] {
    let log = try await p.world.serverLog(p.chat, as: "bob")
    return try #require(log.first { $0.clientMessageId == id.rawValue }?.reactions)
  }

  @Test func myReactionShowsAtOnceOfflineAndReachesTheServerWhenOnline() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = try await p.bobsMessage()
    p.alice.network.isOnline = false
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: false)
    await p.world.settle()
    #expect(screen.latest?.first?.reactions == [Reaction(emoji: "👍", count: 1, includesMe: true)])
    #expect(await p.alice.engine.outboxCount() == 1)
    let entries = Probe(p.alice.engine.outboxQueue.entries(), on: p.world.executor)
    await p.world.settle()
    #expect(entries.latest?.map(\.kind) == [.reaction])
    #expect(entries.latest?.map(\.text) == ["👍"])
    #expect(try await serverReactions(p, on: lunch) == [])
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(
      try await serverReactions(p, on: lunch) == [ReactionGroup(emoji: "👍", userIds: ["alice"])])
    #expect(screen.latest?.first?.reactions == [Reaction(emoji: "👍", count: 1, includesMe: true)])
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aReactionToggledBackWhileUnsentPostsNothing() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = try await p.bobsMessage()
    p.alice.network.isOnline = false
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: false)
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: true)
    // Asking for what is already shown changes nothing either.
    try await p.alice.messages.react("❤️", to: lunch, in: p.chat, remove: true)
    await p.world.settle()
    #expect(screen.latest?.first?.reactions == [])
    #expect(await p.alice.engine.outboxCount() == 0)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.isEmpty)
    #expect(try await serverReactions(p, on: lunch) == [])
    await p.close()
  }

  @Test func aReactionTakenBackAfterItsPostStartedIsQueuedBehindIt() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = try await p.bobsMessage()
    p.alice.network.hold()
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: false)
    await p.world.settle()
    // The post has started: the server may hold it already, so the undo is a post of its own.
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: true)
    await p.world.settle()
    #expect(screen.latest?.first?.reactions == [])
    #expect(await p.alice.engine.outboxCount() == 2)
    p.alice.network.release()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.map(\.remove) == [false, true])
    #expect(p.alice.network.deliveredPosts.map(\.kind) == [.reaction, .reaction])
    #expect(try await serverReactions(p, on: lunch) == [])
    #expect(screen.latest?.first?.reactions == [])
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aReactionThatChangesNothingOnTheServerIsDroppedWithoutAFailure() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = try await p.bobsMessage()
    // Alice's other device puts 👍 while this one is offline and has not heard of it.
    p.alice.network.isOnline = false
    await p.world.settle()
    #expect(try await p.world.react("👍", to: lunch.rawValue, in: p.chat, as: "alice") == 201)
    try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: false)
    await p.world.settle()
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.advance(by: .seconds(1))
    // The server answered 422 "changes nothing": the state is the one asked for.
    #expect(p.alice.network.deliveredPosts.map(\.emoji) == ["👍"])
    #expect(await p.alice.engine.outboxCount() == 0)
    let entries = Probe(p.alice.engine.outboxQueue.entries(), on: p.world.executor)
    await p.world.settle()
    #expect(entries.latest == [])
    #expect(screen.latest?.map(\.send) == [.sent])
    #expect(screen.latest?.first?.reactions == [Reaction(emoji: "👍", count: 1, includesMe: true)])
    await p.close()
  }

  @Test func aReactionWaitsBehindTheUnsentMessageItIsOn() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.isOnline = false
    let mine = try await p.alice.messages.send("photos tonight", in: p.chat)
    try await p.alice.messages.react("🎉", to: mine, in: p.chat, remove: false)
    await p.world.settle()
    #expect(screen.latest?.first?.reactions == [Reaction(emoji: "🎉", count: 1, includesMe: true)])
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.map(\.kind) == [nil, .reaction])
    #expect(
      try await serverReactions(p, on: mine) == [ReactionGroup(emoji: "🎉", userIds: ["alice"])])
    await p.close()
  }

  @Test func aReactionIsOneEmojiOnAMessageThatIsHere() async throws {
    let p = try await Pair.make()
    let lunch = try await p.bobsMessage()
    for notOne in ["", "ok", "👍👍", "a"] {
      await #expect(throws: ChatError.self) {
        try await p.alice.messages.react(notOne, to: lunch, in: p.chat, remove: false)
      }
    }
    let elsewhere = MessageID(rawValue: UUID().uuidString.lowercased())!
    await #expect(
      throws: ChatError.notFound("no message \(elsewhere) in conversation \(p.chat)")
    ) {
      try await p.alice.messages.react("👍", to: elsewhere, in: p.chat, remove: false)
    }
    #expect(try await p.world.delete(lunch.rawValue, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    await #expect(throws: ChatError.invalidInput("the message was deleted")) {
      try await p.alice.messages.react("👍", to: lunch, in: p.chat, remove: false)
    }
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }
}
