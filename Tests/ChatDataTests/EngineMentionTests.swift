import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Mentions", on the device: a message carries the members the server found in
/// it, and the chat list counts my unread messages that mention me ("@" by the count); reading
/// them or their delete lowers it, on this device at once.
@Suite(.timeLimit(.minutes(3)))
struct EngineMentionTests {
  @Test func theListCountsUnreadMessagesThatMentionMeUntilReadOrDeleted() async throws {
    let p = try await Pair.make()
    let carol = try await p.world.device("carol", seed: 6)
    await carol.engine.start()
    let group = try await p.alice.list.createConversation(
      title: "Trio", memberIDs: [UserID("bob"), UserID("carol")])
    await p.world.settle()
    let list = Probe(p.alice.list.conversation(group), on: p.world.executor)
    let screen = p.watch(p.alice, group)
    let first = try await p.bob.messages.send("@alice can you bring the map?", in: group)
    try await p.bob.messages.send("and @carol the snacks", in: group)
    let third = try await p.bob.messages.send("thanks @alice!", in: group)
    await p.world.settle()
    #expect(
      screen.latest?.map(\.mentions) == [[UserID("alice")], [UserID("carol")], [UserID("alice")]])
    #expect(list.latest??.unreadCount == 3)
    #expect(list.latest??.unreadMentions == 2)
    // The server counts the same.
    try await p.bob.messages.delete(third, in: group)
    await p.world.settle()
    #expect(list.latest??.unreadMentions == 1)
    let served = try await p.world.conversationItem(group, as: "alice")
    #expect(served.unreadMentions == 1)
    let sequence = try #require(screen.latest?.first { $0.id == first }?.sequence)
    p.alice.messages.markRead(upTo: sequence, in: group)
    await p.world.settle()
    #expect(list.latest??.unreadMentions == 0)
    // The second message and the tombstone of the third.
    #expect(list.latest??.unreadCount == 2)
    await carol.engine.close()
    await p.close()
  }

  /// An edit item does not carry mentions: the device asks for the message again in its
  /// current state, and shows the mentions the server found in the new text.
  @Test func anEditThatAddsOrRemovesAMentionShowsOnTheOtherDevices() async throws {
    let p = try await Pair.make()
    let carol = try await p.world.device("carol", seed: 6)
    await carol.engine.start()
    let group = try await p.alice.list.createConversation(
      title: "Trio", memberIDs: [UserID("bob"), UserID("carol")])
    await p.world.settle()
    let list = Probe(p.alice.list.conversation(group), on: p.world.executor)
    let screen = p.watch(p.alice, group)
    let named = try await p.bob.messages.send("@alice can you bring the map?", in: group)
    let plain = try await p.bob.messages.send("see you at nine", in: group)
    await p.world.settle()
    #expect(list.latest??.unreadMentions == 1)
    try await p.bob.messages.edit(named, in: group, to: "can someone bring the map?")
    try await p.bob.messages.edit(plain, in: group, to: "see you at nine @alice")
    await p.world.settle()
    #expect(screen.latest?.map(\.mentions) == [[], [UserID("alice")]])
    #expect(screen.latest?.map(\.text) == ["can someone bring the map?", "see you at nine @alice"])
    #expect(list.latest??.unreadMentions == 1)
    await carol.engine.close()
    await p.close()
  }
}
