import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// Seed 003's background: pushes handled with a bounded sync, the token registered, the
/// socket closed in the background, and long poll on a network that blocks WebSockets.
@Suite(.timeLimit(.minutes(3)))
struct EnginePushTests {
  func payload(_ conversation: ConversationID, _ sequence: Int) -> PushPayload {
    PushPayload(
      aps: PushPayload.APS(
        alert: PushPayload.Alert(title: "Hiking", body: "bob: hi"), badge: 1,
        threadId: conversation.rawValue),
      conversationId: conversation.rawValue, sequence: sequence)
  }

  /// What alice's database holds of the conversation, in order.
  func heldSequences(_ p: Pair, _ device: TestDevice? = nil) async throws -> [Int] {
    try await (device ?? p.alice).engine.context.store.snapshot(p.chat, limit: 10_000).messages
      .compactMap(\.sequence)
  }

  @Test func aPushForAConversationWithAGapFillsItWithinTheBudget() async throws {
    let p = try await Pair.make(start: false)
    try await p.world.post("one", in: p.chat, as: "bob")
    _ = try await p.alice.engine.sync()
    for n in 2...6 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let result = await p.alice.engine.handlePush(payload(p.chat, 6), budget: .seconds(20))
    #expect(result == .newData)
    #expect(try await heldSequences(p) == Array(1...6))
    // The delivered receipt went: bob's ticks say delivered up to 6.
    let delivered = p.alice.network.delivered.filter { $0.path.hasSuffix("/delivered") }
    #expect(
      delivered.last.map { String(decoding: $0.body, as: UTF8.self) } == #"{"upToSequence":6}"#)
    // A second push for what is already here: no data.
    #expect(await p.alice.engine.handlePush(payload(p.chat, 6), budget: .seconds(20)) == .noData)
    await p.close()
  }

  @Test func aBudgetTooShortAnswersNewDataWithWhatItGotAndNothingHalfWritten() async throws {
    let p = try await Pair.make(start: false)
    try await p.world.post("zero", in: p.chat, as: "bob")
    _ = try await p.alice.engine.sync()
    for n in 2...1_001 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    // The first round (four pages of 200) comes; the second round's page never answers in time.
    p.alice.network.failNext(
      1, with: .holdReply, where: RequestMatch { $0.query["after"] == "801" })
    let handling = p.world.executor.spawn {
      await p.alice.engine.handlePush(payload(p.chat, 1_001), budget: .seconds(8))
    }
    await p.world.settle()
    await p.world.advance(by: .seconds(8))
    #expect(await handling.value == .newData)
    #expect(try await heldSequences(p) == Array(1...801))
    #expect(try await p.alice.engine.context.store.conversation(p.chat)?.syncedUpTo == 801)
    // The page in flight, when it comes, is saved whole.
    p.alice.network.release()
    await p.world.settle()
    #expect(try await heldSequences(p) == Array(1...1_001))
    await p.close()
  }

  @Test func aBudgetThatEndsBeforeAnythingArrivesAnswersFailed() async throws {
    let p = try await Pair.make(start: false)
    _ = try await p.alice.engine.sync()
    try await p.world.post("late", in: p.chat, as: "bob")
    p.alice.network.hold()
    let handling = p.world.executor.spawn {
      await p.alice.engine.handlePush(payload(p.chat, 1), budget: .seconds(5))
    }
    await p.world.settle()
    await p.world.advance(by: .seconds(5))
    #expect(await handling.value == .failed)
    p.alice.network.release()
    await p.world.settle()
    await p.close()
  }

  @Test func aPushForAConversationThisDeviceDoesNotKnowBringsIt() async throws {
    let p = try await Pair.make(start: false)
    _ = try await p.bob.engine.sync()
    let group = try await p.alice.list.createConversation(title: "New", memberIDs: [UserID("bob")])
    try await p.world.post("welcome", in: group, as: "alice")
    #expect(try await p.bob.engine.context.store.conversation(group) == nil)
    let result = await p.bob.engine.handlePush(payload(group, 1), budget: .seconds(20))
    #expect(result == .newData)
    #expect(try await p.bob.engine.context.store.conversation(group)?.title == "New")
    #expect(
      try await heldSequences(Pair(world: p.world, alice: p.bob, bob: p.alice, chat: group)) == [1])
    await p.close()
  }

  @Test func aPushFlushesTheOutbox() async throws {
    let p = try await Pair.make(start: false)
    _ = try await p.alice.engine.sync()
    p.alice.network.isOnline = false
    _ = try await p.alice.messages.send("written offline", in: p.chat)
    p.alice.network.isOnline = true
    try await p.world.post("hi", in: p.chat, as: "bob")
    #expect(await p.alice.engine.handlePush(payload(p.chat, 1), budget: .seconds(20)) == .newData)
    #expect(
      try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["hi", "written offline"])
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func theTokenIsRegisteredAndSentAgainWhenItChangesOrWasNotConfirmed() async throws {
    let p = try await Pair.make(start: false)
    let registration = PushRegistration(provider: .apns, token: "first")
    try await p.alice.engine.registerPush(registration)
    try await p.alice.engine.registerPush(registration)
    let puts = { p.alice.network.delivered.filter { $0.path == "/v1/devices/me/push" } }
    #expect(puts().count == 1)
    // Offline: kept, and sent at the next connect.
    p.alice.network.isOnline = false
    await #expect(throws: ChatError.self) {
      try await p.alice.engine.registerPush(PushRegistration(provider: .apns, token: "second"))
    }
    p.alice.network.isOnline = true
    await p.alice.engine.start()
    await p.world.settle()
    let bodies = puts().map { String(decoding: $0.body, as: UTF8.self) }
    #expect(bodies.count == 2)
    #expect(bodies.last?.contains(#""token":"second""#) == true)
    try await p.alice.engine.unregisterPush()
    #expect(puts().last?.method == "DELETE")
    await p.close()
  }

  @Test func theBackgroundClosesTheSocketAfterTheGraceAndTheForegroundCatchesUp() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    #expect(p.alice.network.openSockets == 1)
    let leaving = p.world.executor.spawn {
      await p.alice.engine.enterBackground(grace: .seconds(5), window: .seconds(30))
    }
    await p.world.advance(by: .seconds(4))
    #expect(p.alice.network.openSockets == 1)
    await p.world.advance(by: .seconds(1))
    #expect(await leaving.value == 0)
    #expect(p.alice.network.openSockets == 0)
    try await p.world.post("while away", in: p.chat, as: "bob")
    await p.world.settle()
    #expect(screen.latest?.texts == [])
    await p.alice.engine.enterForeground()
    await p.world.settle()
    #expect(p.alice.network.openSockets == 1)
    #expect(screen.latest?.texts == ["while away"])
    await p.close()
  }

  @Test func aQuickReturnFromTheBackgroundLeavesEverythingRunning() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    // Back before the grace ends, and again right when the background's stop runs.
    let leaving = p.world.executor.spawn {
      await p.alice.engine.enterBackground(grace: .seconds(1), window: .seconds(5))
    }
    await p.world.settle()
    await p.alice.engine.enterForeground()
    await p.world.advance(by: .seconds(2))
    _ = await leaving.value
    #expect(p.alice.network.openSockets == 1)
    let again = p.world.executor.spawn {
      await p.alice.engine.enterBackground(grace: .zero, window: .seconds(5))
    }
    let back = p.world.executor.spawn { await p.alice.engine.enterForeground() }
    _ = await (again.value, back.value)
    await p.world.settle()
    // Whatever the order, the last word was the foreground's: connected, and it hears bob.
    #expect(p.alice.network.openSockets == 1)
    try await p.world.post("still here?", in: p.chat, as: "bob")
    await p.world.settle()
    #expect(screen.latest?.texts == ["still here?"])
    await p.close()
  }

  @Test func nothingStartsAfterClose() async throws {
    let p = try await Pair.make()
    await p.alice.engine.close()
    await p.alice.engine.start()
    await p.world.settle()
    #expect(p.alice.network.openSockets == 0)
    await p.bob.engine.close()
    await p.world.shutdown()
  }

  @Test func signingOutForgetsThePushToken() async throws {
    let p = try await Pair.make(start: false)
    try await p.alice.engine.registerPush(PushRegistration(provider: .apns, token: "phone"))
    try await p.alice.engine.signOut()
    let calls = p.alice.network.delivered.filter { $0.path == "/v1/devices/me/push" }
    #expect(calls.map(\.method) == ["PUT", "DELETE"])
    await p.bob.engine.close()
    await p.world.shutdown()
  }

  @Test func theBackgroundLetsTheOutboxFinishInsideTheWindow() async throws {
    let p = try await Pair.make()
    p.alice.network.failNext(2, with: .status(503), where: .sends)
    _ = try await p.alice.messages.send("sent from the lock screen", in: p.chat)
    let leaving = p.world.executor.spawn {
      await p.alice.engine.enterBackground(grace: .seconds(1), window: .seconds(30))
    }
    await p.world.advance(by: .seconds(10))
    #expect(await leaving.value == 0)
    #expect(
      try await p.world.serverLog(p.chat, as: "bob").map(\.text) == ["sent from the lock screen"])
    await p.close()
  }

  @Test func threeRefusedUpgradesSwitchToLongPollAndEveryMessageArrivesOnceInOrder() async throws {
    let p = try await Pair.make(start: false)
    p.alice.network.blocksWebSockets = true
    let states = Probe(p.alice.engine.connectionStates(), on: p.world.executor)
    let screen = p.watch(p.alice)
    await p.alice.engine.start()
    await p.bob.engine.start()
    await p.world.advance(by: .seconds(10))
    #expect(p.alice.network.connectAttempts == 3)
    #expect(states.latest == .polling)
    for n in 1...5 { _ = try await p.bob.messages.send("m\(n)", in: p.chat) }
    await p.world.settle()
    #expect(screen.latest?.texts == ["m1", "m2", "m3", "m4", "m5"])
    // alice sends too, and bob hears it on his socket.
    _ = try await p.alice.messages.send("from behind the proxy", in: p.chat)
    await p.world.settle()
    #expect(try await heldSequences(p) == Array(1...6))
    #expect(try await heldSequences(p, p.bob) == Array(1...6))
    // Every few minutes the socket is tried again; once the proxy lets it through, it stays.
    p.alice.network.blocksWebSockets = false
    await p.world.advance(by: LiveConnection.socketRetryWhilePolling + .seconds(30))
    #expect(states.latest == .connected)
    _ = try await p.bob.messages.send("live again", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.texts.last == "live again")
    #expect(try await heldSequences(p) == Array(1...7))
    await p.close()
  }

  @Test func longPollOnlyNeverTriesTheSocket() async throws {
    let world = try TestWorld()
    var environment = ChatEngine.Environment(
      http: world.network().http, live: world.network().live, clock: world.clock,
      executor: world.executor)
    environment.liveUpdates = .longPollOnly
    let network = world.network()
    environment.http = network.http
    environment.live = network.live
    let alice = try await ChatEngine.devSignIn(
      user: UserID("alice"), device: DeviceID("phone"), database: .memory,
      environment: environment)
    let chat = try await alice.conversationList.createConversation(
      title: "Polled", memberIDs: [UserID("bob")])
    await alice.start()
    await world.settle()
    try await world.post("by poll", in: chat, as: "bob")
    await world.settle()
    #expect(network.connectAttempts == 0)
    #expect(
      try await alice.context.store.snapshot(chat, limit: 10).messages.map(\.text) == ["by poll"])
    await alice.close()
    await world.shutdown()
  }
}
