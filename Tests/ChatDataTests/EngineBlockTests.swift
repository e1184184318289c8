import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "Blocking", on the device: the list reaches every device of mine (the
/// `blocked` event, `/v1/sync`), a group shows a blocked user's messages as blocked, a
/// one-to-one conversation does not, and a post to someone who blocked me turns failed.
@Suite(.timeLimit(.minutes(3)))
struct EngineBlockTests {
  /// alice on a phone and a tablet, bob, carol; a group of the three and alice's one-to-one
  /// conversation with bob, each with one message of bob's.
  private struct Setup {
    let world: TestWorld
    let phone: TestDevice
    let tablet: TestDevice
    let bob: TestDevice
    let carol: TestDevice
    let group: ConversationID
    let chat: ConversationID
    let inGroup: MessageID
    let inChat: MessageID

    static func make() async throws -> Setup {
      let world = try TestWorld()
      let phone = try await world.device("alice", "phone", seed: 1)
      let tablet = try await world.device("alice", "tablet", seed: 2)
      let bob = try await world.device("bob", seed: 3)
      let carol = try await world.device("carol", seed: 4)
      for device in [phone, tablet, bob, carol] { await device.engine.start() }
      let group = try await phone.list.createConversation(
        title: "Trip", memberIDs: [UserID("bob"), UserID("carol")])
      let chat = try await phone.list.createConversation(title: "Bob", memberIDs: [UserID("bob")])
      await world.settle()
      let inGroup = try await bob.messages.send("in the group", in: group)
      let inChat = try await bob.messages.send("just us", in: chat)
      await world.settle()
      return Setup(
        world: world, phone: phone, tablet: tablet, bob: bob, carol: carol, group: group,
        chat: chat,
        inGroup: inGroup, inChat: inChat)
    }

    func close() async {
      for device in [phone, tablet, bob, carol] { await device.engine.close() }
      await world.shutdown()
    }

    func shown(_ id: MessageID, in conversation: ConversationID, on device: TestDevice)
      async throws -> Message?
    {
      try await device.engine.localMessages(in: conversation).first { $0.id == id }
    }
  }

  @Test func aBlockReachesMyOtherDeviceLiveAndHidesTheirMessagesInGroupsOnly() async throws {
    let s = try await Setup.make()
    let groupList = Probe(s.tablet.list.conversation(s.group), on: s.world.executor)
    await s.world.settle()
    #expect(groupList.latest??.lastMessage?.isFromBlockedSender == false)
    try await s.phone.engine.block(UserID("bob"))
    await s.world.settle()
    #expect(try await s.phone.engine.blockedUsers() == [UserID("bob")])
    // The tablet heard the `blocked` event on its socket; its list row changed with it.
    #expect(try await s.tablet.engine.blockedUsers() == [UserID("bob")])
    #expect(groupList.latest??.lastMessage?.isFromBlockedSender == true)
    // Carol's reply quotes bob's message: the quote hides it too.
    let reply = try await s.carol.messages.reply("same here", to: s.inGroup, in: s.group)
    await s.world.settle()
    let quoted = try await s.shown(reply, in: s.group, on: s.phone)?.replyTo
    #expect(quoted?.id == s.inGroup && quoted?.quote == nil)
    for device in [s.phone, s.tablet] {
      #expect(try await s.shown(s.inGroup, in: s.group, on: device)?.isFromBlockedSender == true)
      #expect(try await s.shown(s.inChat, in: s.chat, on: device)?.isFromBlockedSender == false)
    }
    try await s.tablet.engine.unblock(UserID("bob"))
    await s.world.settle()
    #expect(try await s.phone.engine.blockedUsers() == [])
    #expect(try await s.shown(s.inGroup, in: s.group, on: s.phone)?.isFromBlockedSender == false)
    await s.close()
  }

  @Test func aDeviceThatMissedTheEventLearnsTheListFromSync() async throws {
    let s = try await Setup.make()
    s.tablet.network.disturbEvents(.skip(1))
    try await s.phone.engine.block(UserID("bob"))
    await s.world.settle()
    #expect(try await s.tablet.engine.blockedUsers() == [])
    try await s.tablet.engine.sync()
    #expect(try await s.tablet.engine.blockedUsers() == [UserID("bob")])
    #expect(try await s.shown(s.inGroup, in: s.group, on: s.tablet)?.isFromBlockedSender == true)
    await s.close()
  }

  @Test func myMessageToSomeoneWhoBlockedMeTurnsFailed() async throws {
    let s = try await Setup.make()
    try await s.phone.engine.block(UserID("bob"))
    await s.world.settle()
    let refused = try await s.bob.messages.send("hello?", in: s.chat)
    let fine = try await s.bob.messages.send("still here", in: s.group)
    await s.world.settle()
    let refusedState = try await s.shown(refused, in: s.chat, on: s.bob)?.send
    #expect(
      refusedState == .failed(reason: "The recipient blocked you: this message is not sent."))
    #expect(try await s.shown(fine, in: s.group, on: s.bob)?.send == .sent)
    #expect(await s.bob.engine.outboxCount() == 0)
    await s.close()
  }

  @Test func blockingNeedsTheServerAndChangesNothingWithout() async throws {
    let s = try await Setup.make()
    s.phone.network.isOnline = false
    await #expect(throws: ChatError.offline) { try await s.phone.engine.block(UserID("bob")) }
    await #expect(throws: ChatError.invalidInput("you cannot block yourself")) {
      try await s.phone.engine.block(UserID("alice"))
    }
    #expect(try await s.phone.engine.blockedUsers() == [])
    await s.close()
  }
}
