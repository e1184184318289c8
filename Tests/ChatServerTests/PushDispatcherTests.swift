import ChatAPI
import ChatTestSupport
import Foundation
import SQLite
import Support
import Testing

@testable import ChatServer

extension PushDispatcher {
  /// Runs the work due now to its end: the pending round, and every delivery it started with
  /// its result saved.
  func settle() async {
    while true {
      let work = work()
      guard !work.isEmpty else { return }
      for task in work { await task.value }
    }
  }
}

/// `PushDispatcher` alone, over a real SQLite store (a `TestServer` without a gateway, so its
/// service queues nothing): what becomes of a push owed, whatever the gateway answers.
@Suite struct PushDispatcherTests {
  let server: TestServer
  let gateway = RecordingPushGateway()
  let online = OnlineDevices()
  let log = CapturingLogSink()
  let dispatcher: PushDispatcher
  let conversation: String

  init() async throws {
    server = try TestServer()
    dispatcher = PushDispatcher(
      gateway: gateway, store: server.store, clock: server.clock,
      random: SharedRandom(SplitMix64(seed: 9)), executor: server.executor, log: log,
      online: online)
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  /// Stores a message from alice, queuing its pushes as the service would (or as `request`
  /// says), and hands what it queued to the dispatcher.
  func send(_ text: String, queuing request: PushQueueRequest? = nil) async throws {
    var request = request
    if request == nil { request = await dispatcher.queueRequest() }
    let outcome = try await server.store.send(
      NewMessage(
        id: UUID().uuidString.lowercased(), conversationId: conversation, senderId: "alice",
        clientMessageId: UUID().uuidString, clientMessageKey: UUID().uuidString.lowercased(),
        text: text, sentAt: server.clock.now(), push: request))
    await dispatcher.queued(outcome.pushes)
  }

  /// What a message stored while nobody had a socket open queues.
  let owedToAll = PushQueueRequest(skipping: [], window: PushDispatcher.collapseWindow)

  /// Who is owed a push now (a row whose push went stays, for the collapse window).
  func owed() async throws -> [[SQLValue]] {
    try await server.rows("SELECT user_id FROM push_queue WHERE sequence IS NOT NULL")
  }

  func outcomes() -> [String] {
    log.records.filter { $0.event == "push" }.compactMap { record in
      record.fields.first { $0.key == "outcome" }?.value
    }
  }

  @Test func aDeliveredPushIsSentAndCounted() async throws {
    try await send("hello")
    await dispatcher.settle()
    #expect(await gateway.deliveries.map(\.token) == ["bob-phone"])
    #expect(outcomes() == ["sent"])
    #expect(await dispatcher.counters.sent == 1)
    #expect(try await owed().isEmpty)
  }

  @Test func aDeviceThatOpenedASocketMeanwhileIsSkippedAndOwedNothing() async throws {
    // Stored while bob was offline; his socket opened before it left.
    online.insert(DeviceKey(userId: "bob", deviceId: "phone"))
    try await send("hello", queuing: owedToAll)
    await dispatcher.settle()
    #expect(await gateway.deliveries.isEmpty)
    #expect(outcomes() == ["skipped"])
    #expect(try await owed().isEmpty)
    // And a message while it is online queues nothing for it.
    try await send("again")
    #expect(try await owed().isEmpty)
  }

  @Test func aRefusalDropsThePushAndA410ForgetsTheToken() async throws {
    await gateway.answer([.refused(status: 400), .tokenGone], for: "bob-phone")
    try await send("hello")
    await dispatcher.settle()
    #expect(try await owed().isEmpty)
    #expect(try await server.rows("SELECT token FROM push_tokens") == [[.text("bob-phone")]])
    // Sent after the refusal's window: nothing was sent, so it goes at once.
    try await send("again")
    await dispatcher.settle()
    #expect(outcomes() == ["refused_400", "token_gone"])
    #expect(try await server.rows("SELECT * FROM push_tokens").isEmpty)
    let counters = await dispatcher.counters
    #expect(counters.failed == 1)
    #expect(counters.tokensRemoved == 1)
  }

  @Test func aStoppedDispatcherQueuesNothingAndHandsNothingOver() async throws {
    await dispatcher.stop()
    #expect(await dispatcher.queueRequest() == nil)
    try await send("hello", queuing: owedToAll)
    await dispatcher.schedule(at: server.clock.now().millisecondsSince1970)
    await dispatcher.settle()
    #expect(await gateway.deliveries.isEmpty)
    // Still owed: the next start sends it.
    #expect(try await owed() == [[.text("bob")]])
  }
}
