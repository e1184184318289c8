import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// API.md Part 2, "Groups that change", on the device: members and title items update the
/// conversation and show as lines; a removed member keeps what it saw, read-only; gap detection
/// works within the visible ranges, so a member added late or added again never asks forever
/// for what it may not see.
@Suite(.timeLimit(.minutes(3)))
struct EngineGroupsTests {
  /// alice's group with bob, two messages in it, and dave's device (not in it yet).
  private func group() async throws -> (Pair, TestDevice, ConversationID) {
    let p = try await Pair.make()
    let dave = try await p.world.device("dave", seed: 4)
    await dave.engine.start()
    let group = try await p.alice.list.createConversation(
      title: "Hike", memberIDs: [UserID("bob")])
    await p.world.settle()
    for text in ["one", "two"] { try await p.alice.messages.send(text, in: group) }
    await p.world.settle()
    return (p, dave, group)
  }

  private func summary(_ device: TestDevice, _ conversation: ConversationID) async throws
    -> ConversationSummary?
  {
    try await device.engine.context.store.listRow(conversation, me: device.engine.context.me).map {
      RecordMapping.summary($0, me: device.engine.context.me)
    }
  }

  @Test func anAddedMemberLearnsTheConversationAndSeesFromTheItemThatAddedIt() async throws {
    let (p, dave, group) = try await group()
    try await p.alice.list.changeMembers(in: group, add: [UserID("dave")], remove: [])
    await p.world.settle()
    let seen = try #require(try await summary(dave, group))
    #expect(seen.memberIDs.map(\.rawValue) == ["alice", "bob", "dave"])
    #expect(seen.participation == .member)
    #expect(seen.unreadCount == 0, "what came before is not dave's to read")
    let screen = p.watch(dave, group)
    await p.world.settle()
    #expect(screen.latest?.map(\.event) == [.membersChanged(added: [UserID("dave")], removed: [])])
    try await p.alice.messages.send("welcome dave", in: group)
    await p.world.settle()
    #expect(screen.latest?.last?.text == "welcome dave")
    // Nothing below the item that added dave is ever asked for again.
    let fetches = dave.network.count("GET", "/messages")
    await p.world.advance(by: .seconds(60))
    #expect(dave.network.count("GET", "/messages") == fetches)
    #expect(try await p.bob.engine.context.store.conversation(group)?.memberIDs.count == 3)
    await dave.engine.close()
    await p.close()
  }

  @Test func aRemovedMemberKeepsWhatItSawReadOnlyAndGetsNothingMore() async throws {
    let (p, dave, group) = try await group()
    let screen = p.watch(p.bob, group)
    try await p.alice.list.changeMembers(in: group, add: [], remove: [UserID("bob")])
    await p.world.settle()
    try await p.alice.messages.send("after bob", in: group)
    await p.world.settle()
    let gone = try #require(try await summary(p.bob, group))
    #expect(gone.participation == .removed)
    #expect(screen.latest?.map(\.text).prefix(2) == ["one", "two"])
    #expect(screen.latest?.last?.event == .membersChanged(added: [], removed: [UserID("bob")]))
    #expect(!(screen.latest?.contains { $0.text == "after bob" } ?? true))
    await #expect(throws: ChatError.invalidInput("you were removed from this conversation")) {
      try await p.bob.messages.send("let me back", in: group)
    }
    #expect(gone.unreadCount == 2, "one and two; not the removal, not what came after")
    await dave.engine.close()
    await p.close()
  }

  @Test func aRemovedMemberWatchingAndReadingDoesNotAskTheServerForever() async throws {
    let (p, dave, group) = try await group()
    try await p.alice.list.changeMembers(in: group, add: [], remove: [UserID("bob")])
    await p.world.settle()
    let before = p.bob.network.requests.count
    let screen = p.watch(p.bob, group)
    p.bob.messages.markRead(upTo: 3, in: group)
    await p.world.advance(by: .seconds(120))
    #expect(screen.latest?.isEmpty == false)
    let asked = p.bob.network.requests[before...].map { "\($0.method) \($0.path)" }
    #expect(asked.count <= 4, "\(asked)")
    await dave.engine.close()
    await p.close()
  }

  @Test func aRemovedMemberCanNoLongerEditOrDeleteWhatItSent() async throws {
    let (p, dave, group) = try await group()
    let mine = try await p.bob.messages.send("bob was here", in: group)
    await p.world.settle()
    try await p.alice.list.changeMembers(in: group, add: [], remove: [UserID("bob")])
    await p.world.settle()
    let readOnly = ChatError.invalidInput("you are no longer a member of this conversation")
    await #expect(throws: readOnly) {
      try await p.bob.messages.edit(mine, in: group, to: "bob is still here")
    }
    await #expect(throws: readOnly) { try await p.bob.messages.delete(mine, in: group) }
    #expect(await p.bob.engine.outboxCount() == 0)
    await dave.engine.close()
    await p.close()
  }

  @Test func removedAndAddedAgainFillsNoGapItMayNotSee() async throws {
    let (p, dave, group) = try await group()
    try await p.alice.list.changeMembers(in: group, add: [], remove: [UserID("bob")])
    for text in ["while bob was away", "still away"] {
      try await p.alice.messages.send(text, in: group)
    }
    try await p.alice.list.changeMembers(in: group, add: [UserID("bob")], remove: [])
    try await p.alice.messages.send("welcome back", in: group)
    await p.world.settle()
    let back = try #require(try await p.bob.engine.context.store.conversation(group))
    #expect(back.participation == .member)
    #expect(back.visible.ranges.count == 2)
    let screen = p.watch(p.bob, group)
    await p.world.settle()
    let texts = screen.latest?.filter { $0.event == nil }.map(\.text)
    #expect(texts == ["one", "two", "welcome back"])
    let fetches = p.bob.network.count("GET", "/messages")
    await p.world.advance(by: .seconds(60))
    #expect(p.bob.network.count("GET", "/messages") == fetches, "no endless gap fill")
    #expect(back.syncedUpTo == nil || back.syncedUpTo! <= back.lastSequence)
    await dave.engine.close()
    await p.close()
  }

  @Test func aTitleChangeRenamesTheConversationOnEveryDevice() async throws {
    let (p, dave, group) = try await group()
    try await p.bob.list.rename(group, to: "Sunday hike")
    await p.world.settle()
    #expect(try await summary(p.alice, group)?.title == "Sunday hike")
    #expect(try await summary(p.bob, group)?.title == "Sunday hike")
    let screen = p.watch(p.alice, group)
    await p.world.settle()
    #expect(screen.latest?.last?.event == .titleChanged("Sunday hike"))
    await #expect(throws: ChatError.self) { try await p.bob.list.rename(group, to: "  ") }
    await dave.engine.close()
    await p.close()
  }

  @Test func aMuteReachesMyOtherDevicesAndEndsThere() async throws {
    let p = try await Pair.make()
    let tablet = try await p.world.device("bob", "tablet", seed: 5)
    await tablet.engine.start()
    await p.world.settle()
    try await p.bob.list.mute(p.chat, until: .distantFuture, mentionsPush: false)
    await p.world.settle()
    #expect(try await summary(p.bob, p.chat)?.mutedUntil == .distantFuture)
    #expect(try await summary(tablet, p.chat)?.mutedUntil == .distantFuture)
    // The mute's mentions option too (API.md Part 3): silent here, on the server, on the tablet.
    #expect(try await summary(p.bob, p.chat)?.mentionsPushThroughMute == false)
    #expect(try await p.world.conversationItem(p.chat, as: "bob").mutedMentions == .silent)
    #expect(try await summary(tablet, p.chat)?.mentionsPushThroughMute == false)
    #expect(try await summary(p.alice, p.chat)?.mutedUntil == nil, "bob's alone")
    try await p.bob.list.mute(p.chat, until: nil, mentionsPush: true)
    await p.world.settle()
    #expect(try await summary(tablet, p.chat)?.mutedUntil == nil)
    #expect(try await summary(tablet, p.chat)?.mentionsPushThroughMute == true)
    await tablet.engine.close()
    await p.close()
  }

  @Test func myMessageInAGroupSaysWhoOfTheOthersReadIt() async throws {
    let p = try await Pair.make()
    let carol = try await p.world.device("carol", seed: 6)
    await carol.engine.start()
    let group = try await p.alice.list.createConversation(
      title: "Trio", memberIDs: [UserID("bob"), UserID("carol")])
    await p.world.settle()
    let screen = p.watch(p.alice, group)
    let id = try await p.alice.messages.send("who reads this?", in: group)
    await p.world.settle()
    p.bob.messages.markRead(upTo: 1, in: group)
    await p.world.advance(by: .seconds(3))
    let mine = try #require(screen.latest?.first { $0.id == id })
    #expect(mine.group?.readBy == [UserID("bob")])
    #expect(mine.group?.memberCount == 2)
    #expect(mine.group?.deliveredTo.contains(UserID("bob")) == true)
    // A one-to-one conversation has no "read by N of M".
    let direct = p.watch(p.alice)
    try await p.alice.messages.send("just us", in: p.chat)
    await p.world.settle()
    #expect(direct.latest?.first?.group == nil)
    // dave, added later, never saw it: not one of those it counts, even once his numbers pass.
    let dave = try await p.world.device("dave", seed: 7)
    await dave.engine.start()
    try await p.alice.list.changeMembers(in: group, add: [UserID("dave")], remove: [])
    try await p.alice.messages.send("welcome dave", in: group)
    await p.world.settle()
    dave.messages.markRead(upTo: 3, in: group)
    await p.world.advance(by: .seconds(3))
    let first = try #require(screen.latest?.first { $0.id == id })
    #expect(first.group?.memberCount == 2)
    #expect(first.group?.readBy == [UserID("bob")])
    let welcome = try #require(screen.latest?.last)
    #expect(welcome.group?.memberCount == 3)
    #expect(welcome.group?.readBy == [UserID("dave")])
    await dave.engine.close()
    await carol.engine.close()
    await p.close()
  }

  @Test func removingOthersWithoutTheRightIsRefusedAndChangesNothing() async throws {
    let (p, dave, group) = try await group()
    await #expect(
      throws: ChatError.rejected(code: "forbidden", message: "you may not make this change here")
    ) {
      try await p.bob.list.changeMembers(in: group, add: [], remove: [UserID("alice")])
    }
    #expect(try await summary(p.alice, group)?.memberIDs.count == 2)
    await dave.engine.close()
    await p.close()
  }
}
