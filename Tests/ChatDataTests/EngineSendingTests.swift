import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Support
import Testing

@testable import ChatData

@Suite(.timeLimit(.minutes(3)))
struct EngineSendingTests {
  @Test func sendShowsTheBubbleAtOnceAsSendingThenSentWithTheServersSequence() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    p.alice.network.hold()
    let id = try await p.alice.messages.send("on my way", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.map(\.id) == [id])
    #expect(screen.latest?.first?.send == .sending)
    p.alice.network.release()
    await p.world.settle()
    let sent = try #require(screen.latest?.first)
    #expect(sent.id == id)
    #expect(sent.send == .sent)
    #expect(sent.sequence == 1)
    await p.close()
  }

  @Test func theBubbleKeepsItsIdentityFromSendingToRead() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    // Held, so the screen sees the row while it is sending whatever the machine's load: without
    // it the post could finish before the screen's first read (a CI run saw only "sent").
    p.alice.network.hold()
    let id = try await p.alice.messages.send("on my way", in: p.chat)
    await p.world.settle()
    p.alice.network.release()
    await p.world.settle()
    p.bob.messages.markRead(upTo: 1, in: p.chat)
    // Receipt changes reach alice coalesced, at most one frame per 250 ms.
    await p.world.advance(by: .milliseconds(300))
    let states = screen.all.compactMap { $0.first { $0.id == id } }
    #expect(states.first?.send == .sending)
    #expect(states.last?.send == .sent)
    #expect(states.last?.receipt == .read)
    #expect(Set(states.map(\.id)) == [id])
    await p.close()
  }

  @Test func retryAfterLostReplyKeepsOneMessage() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(1, with: .loseReply, where: .sends)
    // The socket's echo would also tell alice; this test is about the retry.
    p.alice.network.disturbEvents(.skip(1))
    let id = try await p.alice.messages.send("on my way", in: p.chat)
    await p.world.settle()
    // The server committed it, but alice does not know: her row is still sending.
    #expect(try await p.world.serverLog(p.chat, as: "alice").count == 1)
    #expect(await p.alice.engine.outboxCount() == 1)
    await p.world.advance(by: .seconds(2))
    #expect(p.alice.network.postedIDs == [id.rawValue, id.rawValue])
    #expect(await p.alice.engine.outboxCount() == 0)
    let log = try await p.world.serverLog(p.chat, as: "alice")
    #expect(log.map(\.clientMessageId) == [id.rawValue])
    // What a retry with a new ID would have done: a second copy for bob.
    try await p.world.post("on my way", in: p.chat, as: "alice")
    #expect(try await p.world.serverLog(p.chat, as: "alice").count == 2)
    await p.close()
  }

  @Test(arguments: [
    HTTPFault.timeout, .offline, .status(503), .status(500), .status(429, retryAfter: 1),
  ])
  func aTemporaryErrorKeepsTheRowSendingAndRetriesTheSameIDAfterABackoff(fault: HTTPFault)
    async throws
  {
    let p = try await Pair.make()
    p.alice.network.failNext(2, with: fault, where: .sends)
    let screen = p.watch(p.alice)
    let id = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.first?.send == .sending)
    #expect(p.alice.network.postedIDs.count == 1)
    // The queue pauses: nothing is posted until the backoff ends.
    await p.world.advance(by: .milliseconds(200))
    #expect(p.alice.network.postedIDs.count == 1)
    await p.world.advance(by: .seconds(5))
    #expect(p.alice.network.postedIDs == [id.rawValue, id.rawValue, id.rawValue])
    #expect(screen.latest?.first?.send == .sent)
    await p.close()
  }

  @Test func retryAfterIsHonoured() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(1, with: .status(429, retryAfter: 30), where: .sends)
    _ = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.settle()
    await p.world.advance(by: .seconds(29))
    #expect(p.alice.network.postedIDs.count == 1)
    await p.world.advance(by: .seconds(2))
    #expect(p.alice.network.postedIDs.count == 2)
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aRejectedMessageFailsAloneAndTheNextStillGoes() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(1, with: .status(422), where: .sends)
    let screen = p.watch(p.alice)
    let first = try await p.alice.messages.send("first", in: p.chat)
    let second = try await p.alice.messages.send("second", in: p.chat)
    await p.world.settle()
    let rows = try #require(screen.latest)
    #expect(rows.first { $0.id == second }?.send == .sent)
    #expect(rows.first { $0.id == first }?.send == .failed(reason: "injected by the test"))
    #expect(try await p.world.serverLog(p.chat, as: "alice").map(\.text) == ["second"])
    await p.close()
  }

  @Test func aTappedRetryReusesTheIDAndGoesToTheBackOfTheQueue() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(1, with: .status(409), where: .sends)
    let first = try await p.alice.messages.send("first", in: p.chat)
    await p.world.settle()
    p.alice.network.isOnline = false
    _ = try await p.alice.messages.send("second", in: p.chat)
    _ = try await p.alice.messages.send("third", in: p.chat)
    await p.alice.messages.retry(first)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    let log = try await p.world.serverLog(p.chat, as: "alice")
    #expect(log.map(\.text) == ["second", "third", "first"])
    #expect(log.last?.clientMessageId == first.rawValue)
    #expect(p.alice.network.postedIDs.filter { $0 == first.rawValue }.count == 2)
    await p.close()
  }

  @Test func threeMessagesQueuedOfflineGoOutOldestFirstOneAtATime() async throws {
    let p = try await Pair.make()
    p.alice.network.isOnline = false
    for text in ["one", "two", "three"] { _ = try await p.alice.messages.send(text, in: p.chat) }
    await p.world.settle()
    p.alice.network.hold()
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    // One post in flight, not three.
    #expect(p.alice.network.postedTexts.suffix(1) == ["one"])
    #expect(p.alice.network.postedTexts.filter { $0 != "one" }.isEmpty)
    p.alice.network.release()
    await p.world.advance(by: .seconds(60))
    #expect(
      try await p.world.serverLog(p.chat, as: "alice").map(\.text) == ["one", "two", "three"])
    await p.close()
  }

  /// Seed 003: one in flight at a time *per chat*. Two conversations send side by side, the
  /// first of each at once, and each keeps its own order.
  @Test func conversationsSendSideBySideEachInItsOwnOrder() async throws {
    let p = try await Pair.make()
    let group = try await p.alice.list.createConversation(title: "G", memberIDs: [UserID("bob")])
    p.alice.network.isOnline = false
    for text in ["a1", "a2"] { _ = try await p.alice.messages.send(text, in: p.chat) }
    for text in ["g1", "g2"] { _ = try await p.alice.messages.send(text, in: group) }
    await p.world.settle()
    let triedOffline = p.alice.network.postedTexts.count
    p.alice.network.hold()
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.postedTexts.dropFirst(triedOffline).sorted() == ["a1", "g1"])
    p.alice.network.release()
    await p.world.advance(by: .seconds(60))
    #expect(try await p.world.serverLog(p.chat, as: "alice").map(\.text) == ["a1", "a2"])
    #expect(try await p.world.serverLog(group, as: "alice").map(\.text) == ["g1", "g2"])
    await p.close()
  }

  /// A conversation whose sends get 429s waits out its Retry-After alone: another
  /// conversation's message goes out meanwhile.
  @Test func aConversationHeldBy429sDoesNotHoldTheOthers() async throws {
    let p = try await Pair.make()
    let group = try await p.alice.list.createConversation(title: "G", memberIDs: [UserID("bob")])
    let held = "/v1/conversations/\(p.chat)/messages"
    p.alice.network.failNext(
      2, with: .status(429, retryAfter: 30),
      where: RequestMatch { $0.method == "POST" && $0.path == held })
    _ = try await p.alice.messages.send("held", in: p.chat)
    await p.world.settle()
    _ = try await p.alice.messages.send("free", in: group)
    await p.world.settle()
    #expect(try await p.world.serverLog(group, as: "alice").map(\.text) == ["free"])
    #expect(try await p.world.serverLog(p.chat, as: "alice").isEmpty)
    await p.world.advance(by: .seconds(120))
    #expect(try await p.world.serverLog(p.chat, as: "alice").map(\.text) == ["held"])
    await p.close()
  }

  @Test func aNewEngineOverTheSameFileResendsWhatTheOldOneLeft() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "engine-\(UUID().uuidString).sqlite"
    ).path
    let world = try TestWorld()
    let network = world.network()
    let alice = try await world.device("alice", database: .file(path), network: network)
    _ = try await world.device("bob")
    let chat = try await alice.list.createConversation(title: "Trip", memberIDs: [UserID("bob")])
    network.isOnline = false
    await alice.engine.start()
    for text in ["one", "two", "three"] { _ = try await alice.messages.send(text, in: chat) }
    await world.settle()
    await alice.engine.close()
    #expect(try await world.serverLog(chat, as: "alice").isEmpty)

    network.isOnline = true
    let relaunched = try await world.reopen(alice, database: .file(path))
    #expect(await relaunched.engine.outboxCount() == 3)
    await relaunched.engine.start()
    await world.settle()
    #expect(try await world.serverLog(chat, as: "alice").map(\.text) == ["one", "two", "three"])
    #expect(await relaunched.engine.outboxCount() == 0)
    await relaunched.engine.close()
    await world.shutdown()
  }

  @Test func sendingWorksWithNoNetworkAndShowsAtOnce() async throws {
    let p = try await Pair.make()
    p.alice.network.isOnline = false
    let screen = p.watch(p.alice)
    let id = try await p.alice.messages.send("in a tunnel", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.map(\.id) == [id])
    #expect(screen.latest?.first?.send == .sending)
    await p.close()
  }

  @Test(arguments: ["", "   ", "\n\t"])
  func anEmptyMessageIsRefusedWithAClearError(text: String) async throws {
    let p = try await Pair.make()
    await #expect(throws: ChatError.invalidInput("the message is empty")) {
      try await p.alice.messages.send(text, in: p.chat)
    }
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aMessageOverTheLimitIsRefusedAndOneAtTheLimitGoes() async throws {
    let p = try await Pair.make()
    let tooLong = String(repeating: "é", count: 4097)
    await #expect(throws: ChatError.self) { try await p.alice.messages.send(tooLong, in: p.chat) }
    _ = try await p.alice.messages.send(String(repeating: "é", count: 4096), in: p.chat)
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "alice").count == 1)
    await p.close()
  }

  @Test func sendingToAnUnknownConversationIsNotFound() async throws {
    let p = try await Pair.make()
    await #expect(throws: ChatError.notFound("conversation nope")) {
      try await p.alice.messages.send("hi", in: ConversationID("nope"))
    }
    await p.close()
  }

  @Test func sendToSentTimeIsMeasured() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(1, with: .timeout, where: .sends)
    _ = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.advance(by: .seconds(5))
    let metrics = await p.alice.engine.metrics()
    #expect(metrics.sendToSent.count == 1)
    #expect(metrics.sendToSent.p50 > .zero)
    #expect(metrics.sendAttempts == 2)
    #expect(metrics.temporaryFailures == 1)
    #expect(metrics.sendsAccepted == 1)
    #expect(metrics.outboxSize == 0)
    await p.close()
  }
}
