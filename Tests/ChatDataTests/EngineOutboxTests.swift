import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// Stale sends ask first (a message that waited past the threshold is not sent silently), on
/// the engine's elapsed time, across a restart and whatever the phone's date does; and the
/// outbox you can see: its rows, attempts, last error and next attempt, retry and discard.
@Suite(.timeLimit(.minutes(3)))
struct EngineOutboxTests {
  static let day = Duration.seconds(86_400)
  /// The threshold of these tests: ten minutes, not the default day, so that stepping the
  /// world past it stays short (a simulated day of offline retries took a minute on a busy
  /// CI machine). The default's own test is `acrossARestartTheWaitSoFarCounts`.
  static let threshold = Duration.seconds(600)

  func messages(_ device: TestDevice, _ chat: ConversationID) async throws -> [Message] {
    let snapshot = try await device.engine.context.store.snapshot(chat, limit: 50)
    return RecordMapping.messages(snapshot, me: device.engine.currentUserID)
  }

  @Test func aMessageThatWaitedPastTheThresholdIsHeldNotSentThenSentOnRequest() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    p.alice.network.isOnline = false
    let id = try await p.alice.messages.send("see you at noon", in: p.chat)
    await p.world.advance(by: Self.threshold + .seconds(60))
    p.alice.network.isOnline = true
    await p.world.settle()
    #expect(try await messages(p.alice, p.chat).first { $0.id == id }?.send == .stale)
    #expect(try await p.world.serverLog(p.chat, as: "bob").isEmpty, "not sent silently")
    let entries = await Probe(p.alice.engine.outboxQueue.entries(), on: p.world.executor)
    await p.world.settle()
    #expect(entries.latest?.map(\.state) == [.notSent])
    await p.alice.messages.retry(id)
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["see you at noon"])
    #expect(entries.latest?.isEmpty == true)
    await p.close()
  }

  @Test func aMessageWithinTheThresholdIsSentAsUsual() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    p.alice.network.isOnline = false
    _ = try await p.alice.messages.send("soon", in: p.chat)
    await p.world.advance(by: Self.threshold / 2)
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(60))
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["soon"])
    await p.close()
  }

  @Test func thePhonesDateMovedADayForwardDoesNotMakeASendStale() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    p.alice.network.isOnline = false
    _ = try await p.alice.messages.send("on my way", in: p.chat)
    await p.world.advance(by: .seconds(60))
    p.world.clock.shiftWallClock(by: Self.day * 2)
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(60))
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["on my way"])
    await p.close()
  }

  @Test func thePhonesDateMovedBackDoesNotKeepAStaleSendGoing() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    p.alice.network.isOnline = false
    let id = try await p.alice.messages.send("old news", in: p.chat)
    p.world.clock.shiftWallClock(by: .zero - Self.day * 3)
    await p.world.advance(by: Self.threshold + .seconds(60))
    p.alice.network.isOnline = true
    await p.world.settle()
    #expect(try await messages(p.alice, p.chat).first { $0.id == id }?.send == .stale)
    await p.close()
  }

  /// Closed for 25 hours (the engine measures nothing then; the wall clock's gap counts), the
  /// message is held at the next launch; a relaunch after a minute sends as usual.
  @Test(arguments: [(Duration.seconds(25 * 3600), true), (Duration.seconds(60), false)])
  func acrossARestartTheWaitSoFarCounts(closedFor: Duration, held: Bool) async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let world = try TestWorld()
    let network = world.network()
    let alice = try await world.device("alice", database: .file(path), network: network)
    _ = try await world.device("bob")
    let chat = try await alice.list.createConversation(title: "Trip", memberIDs: [UserID("bob")])
    network.isOnline = false
    await alice.engine.start()
    let id = try await alice.messages.send("written offline", in: chat)
    await world.settle()
    await alice.engine.close()
    await world.advance(by: closedFor)
    network.isOnline = true
    let relaunched = try await world.reopen(alice, database: .file(path))
    await relaunched.engine.start()
    await world.settle()
    let sent = try await world.serverLog(chat, as: "bob").map(\.text)
    #expect(sent == (held ? [] : ["written offline"]))
    let state = try await messages(relaunched, chat).first { $0.id == id }?.send
    #expect(state == (held ? .stale : .sent))
    await relaunched.engine.close()
    await world.shutdown()
  }

  @Test func theOutboxShowsAttemptsTheLastErrorAndTheNextAttempt() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    let entries = Probe(p.alice.engine.outboxQueue.entries(), on: p.world.executor)
    p.alice.network.failNext(1, with: .status(503), where: .sends)
    let id = try await p.alice.messages.send("through a bad patch", in: p.chat)
    await p.world.settle()
    let waiting = try #require(entries.latest?.first)
    #expect(waiting.id == id)
    #expect(waiting.state == .waiting)
    #expect(waiting.attempts == 1)
    #expect(waiting.lastError == "status_503")
    let next = try #require(waiting.nextAttempt)
    #expect(next > p.world.clock.now().date)
    #expect(waiting.conversationTitle == "Hiking")
    await p.world.advance(by: .seconds(60))
    #expect(entries.latest == [])
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["through a bad patch"])
    await p.close()
  }

  @Test func discardingAHeldMessageMeansItNeverReachesTheServer() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    p.alice.network.isOnline = false
    let id = try await p.alice.messages.send("too late now", in: p.chat)
    await p.world.advance(by: Self.threshold * 2)
    p.alice.network.isOnline = true
    await p.world.settle()
    #expect(try await messages(p.alice, p.chat).first { $0.id == id }?.send == .stale)
    try await p.alice.engine.outboxQueue.discard(id)
    await p.world.settle()
    #expect(try await messages(p.alice, p.chat).isEmpty)
    await p.alice.engine.outboxQueue.retry(nil as MessageID?)
    await p.world.advance(by: .seconds(60))
    #expect(try await p.world.serverLog(p.chat, as: "bob").isEmpty, "retry all finds nothing")
    await #expect(throws: ChatError.self) { try await p.alice.engine.outboxQueue.discard(id) }
    await p.close()
  }

  /// A held message in a group its sender has since been removed from: discarding it is
  /// refused as any change there is, and changes nothing. (It went back to sending: the
  /// discard put the row back in the outbox before finding the conversation read-only, and
  /// there it stayed, sending for ever, without "send now"; the simulation found it.)
  @Test func discardingAHeldMessageInAConversationILeftChangesNothing() async throws {
    let p = try await Pair.make(staleSendAfter: Self.threshold)
    let group = try await p.alice.list.createConversation(
      title: "Hike", memberIDs: [UserID("bob")])
    await p.world.settle()
    p.bob.network.isOnline = false
    let id = try await p.bob.messages.send("too late now", in: group)
    await p.world.advance(by: Self.threshold * 2)
    try await p.alice.list.changeMembers(in: group, add: [], remove: [UserID("bob")])
    p.bob.network.isOnline = true
    await p.world.advance(by: .seconds(60))
    #expect(try await p.bob.engine.context.store.conversation(group)?.participation == .removed)
    #expect(try await messages(p.bob, group).first { $0.id == id }?.send == .stale)
    let posts = p.bob.network.count("POST", "/messages")
    await #expect(throws: ChatError.invalidInput("you are no longer a member of this conversation"))
    {
      try await p.bob.engine.outboxQueue.discard(id)
    }
    await p.world.advance(by: .seconds(60))
    #expect(try await messages(p.bob, group).first { $0.id == id }?.send == .stale)
    #expect(p.bob.network.count("POST", "/messages") == posts, "not posted")
    await p.close()
  }
}
