import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Support
import Testing

@testable import ChatData

/// Regressions for bugs a review found, each reproduced before its fix.
@Suite(.timeLimit(.minutes(3)))
struct EngineRegressionTests {
  /// A device in `world` whose HTTP goes through `wrap` and its socket through `live`.
  static func device(
    _ world: TestWorld, _ user: String, wrap: (any HTTPTransport) -> any HTTPTransport = { $0 },
    live: @escaping (any LiveTransport) -> any LiveTransport = { $0 }
  ) async throws -> (ChatEngine, TestNetwork) {
    let device = try await world.device(user, seed: 11, wrapHTTP: wrap, wrapLive: live)
    return (device.engine, device.network)
  }

  @Test func aGapSeenWhileACatchUpIsInFlightIsFilled() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    try await p.world.post("m1", in: p.chat, as: "bob")
    await p.world.settle()
    // m2 is lost on the socket; m3 reveals the gap; the catch-up's reply is held.
    p.alice.network.failNext(1, with: .holdReply, where: .fetches)
    p.alice.network.disturbEvents(.skip(1))
    try await p.world.post("m2", in: p.chat, as: "bob")
    try await p.world.post("m3", in: p.chat, as: "bob")
    await p.world.settle()
    // While that reply is on its way, m4 is lost too and m5 arrives.
    p.alice.network.disturbEvents(.skip(1))
    try await p.world.post("m4", in: p.chat, as: "bob")
    try await p.world.post("m5", in: p.chat, as: "bob")
    await p.world.settle()
    p.alice.network.release()
    await p.world.settle()
    #expect(screen.latest?.texts == ["m1", "m2", "m3", "m4", "m5"])
    await p.close()
  }

  @Test func startDuringStopLeavesOneHealthyLoop() async throws {
    let world = try TestWorld()
    let (alice, network) = try await Self.device(
      world, "alice", live: { SlowCloseTransport(base: $0, clock: world.clock) })
    await alice.start()
    await world.settle()
    #expect(network.connectAttempts == 1)
    // The app goes to the background and straight back while the close handshake runs.
    let stopping = world.executor.spawn { await alice.stop() }
    await world.settle()
    await alice.start()
    await world.advance(by: .seconds(1))
    await stopping.value
    await world.advance(by: .seconds(10))
    #expect(network.connectAttempts == 2)
    #expect(network.openSockets == 1)
    let closing = world.executor.spawn { await alice.close() }
    await world.advance(by: .seconds(2))
    await closing.value
    await world.shutdown()
  }

  @Test func aRefreshThatFailsForAPassingReasonDoesNotSignOut() async throws {
    let p = try await Pair.make(accessTokenTTL: .seconds(60))
    let states = Probe(p.alice.engine.connectionStates(), on: p.world.executor)
    // Past the token's expiry, before the server closes the socket for it (30 s later).
    await p.world.advance(by: .seconds(61))
    p.alice.network.failNext(
      1, with: .offline, where: RequestMatch { $0.path.hasSuffix("/auth/refresh") })
    p.alice.network.dropSockets()
    await p.world.advance(by: .seconds(60))
    #expect(!states.all.contains(.signedOut))
    #expect(states.latest == .connected)
    #expect(p.alice.network.count("POST", "/auth/refresh") == 2)
    await p.close()
  }

  @Test func anAcceptedPostWhoseSaveFailsBacksOffInsteadOfLooping() async throws {
    let world = try TestWorld()
    let (alice, network) = try await Self.device(
      world, "alice", wrap: { clashingReplies(base: $0) })
    _ = try await world.device("bob")
    let chat = try await alice.conversationList.createConversation(
      title: "t", memberIDs: [UserID("bob")])
    await alice.start()
    try await world.post("m1", in: chat, as: "bob")
    await world.settle()
    network.disturbEvents(.skip(10))
    _ = try await alice.messages.send("mine", in: chat)
    // A tight loop would never let the world settle.
    await world.settle()
    #expect(network.count("POST", "/messages") == 1)
    await world.advance(by: .seconds(10))
    #expect((2...6).contains(network.count("POST", "/messages")))
    #expect(await alice.outboxCount() == 1)
    await alice.close()
    await world.shutdown()
  }

  @Test func oneUnreadableMessageDoesNotHoldBackTheRest() async throws {
    let world = try TestWorld()
    let (alice, network) = try await Self.device(world, "alice", wrap: { poisoned(base: $0) })
    _ = try await world.device("bob")
    let chat = try await alice.conversationList.createConversation(
      title: "t", memberIDs: [UserID("bob")])
    await alice.start()
    let screen = Probe(alice.messages.messages(in: chat), on: world.executor)
    try await world.post("m1", in: chat, as: "bob")
    await world.settle()
    network.disturbEvents(.skip(1))
    try await world.post("poison", in: chat, as: "bob")
    for n in 3...6 {
      try await world.post("m\(n)", in: chat, as: "bob")
      await world.settle()
    }
    await world.advance(by: .seconds(30))
    #expect(try await alice.context.store.conversation(chat)?.syncedUpTo == 6)
    #expect(screen.latest?.texts == ["m1", "m3", "m4", "m5", "m6"])
    #expect(network.catchUpAfters.filter { $0 == 1 }.count == 1)
    await alice.close()
    await world.shutdown()
  }

  @Test func aReadReceiptMissedWhileOfflineShowsAfterTheReconnect() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    _ = try await p.alice.messages.send("hello", in: p.chat)
    // bob's delivery follows alice's own numbers inside one receipts window (250 ms).
    await p.world.advance(by: .milliseconds(300))
    #expect(screen.latest?.first?.receipt == .delivered)
    p.alice.network.isOnline = false
    await p.world.settle()
    try await p.world.markRead(upTo: 1, in: p.chat, as: "bob")
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(30))
    #expect(screen.latest?.first?.receipt == .read)
    await p.close()
  }

  @Test func aDeliveredReceiptThatFailedIsTriedAgain() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.bob.network.failNext(
      1, with: .status(503), where: RequestMatch { $0.path.hasSuffix("/delivered") })
    _ = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.first?.receipt == .notDelivered)
    await p.world.advance(by: .seconds(5))
    #expect(screen.latest?.first?.receipt == .delivered)
    await p.close()
  }

  @Test func theSyncCursorStaysWhenAConversationCouldNotBeRead() async throws {
    let world = try TestWorld()
    let (alice, _) = try await Self.device(world, "alice", wrap: { unreadableSync(base: $0) })
    _ = try await alice.conversationList.createConversation(title: "t", memberIDs: [])
    _ = try await alice.sync()
    #expect(try await alice.context.store.syncCursor() == nil)
    await alice.close()
    await world.shutdown()
  }

  @Test func anAbsurdRetryAfterIsCappedAtAnHour() {
    let response = APIResponse(status: 429, headers: ["Retry-After": "31536000"])
    #expect(
      APIClient.classify(response, retryPolicy: RetryPolicy()).retryAfter == .seconds(3_600))
  }
}

/// A socket whose close takes a (manual-clock) second, as a real close handshake does.
struct SlowCloseTransport: LiveTransport {
  let base: any LiveTransport
  let clock: ManualClock

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    SlowCloseSocket(base: try await base.connect(headers: headers), clock: clock)
  }

  struct SlowCloseSocket: LiveSocket {
    let base: any LiveSocket
    let clock: ManualClock
    var messages: AsyncStream<String> { base.messages }
    func send(_ text: String) async throws { try await base.send(text) }
    func close() async {
      await base.close()
      try? await clock.sleep(for: .seconds(1))
    }
  }
}

/// Rewrites the replies to `GET …/messages`, `POST …/messages` or `GET /v1/sync`, read and
/// written as API.md's shapes.
struct RewritingTransport<Shape: Codable & Sendable>: HTTPTransport {
  let base: any HTTPTransport
  let matches: @Sendable (APIRequest) -> Bool
  let rewrite: @Sendable (inout Shape) -> Void

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    var response = try await base.send(request)
    guard matches(request), var shape = try? APICoding.decode(Shape.self, from: response.body)
    else { return response }
    rewrite(&shape)
    response.body = APICoding.encode(shape)
    return response
  }
}

/// The message "poison" comes with a sender ID this client cannot read.
func poisoned(base: any HTTPTransport) -> any HTTPTransport {
  RewritingTransport<ItemPage>(
    base: base, matches: { $0.method == "GET" },
    rewrite: { page in
      for index in page.items.indices where page.items[index].text == "poison" {
        page.items[index].senderId = "Not Valid"
      }
    })
}

/// Every post is answered with sequence 1, which another message already holds.
func clashingReplies(base: any HTTPTransport) -> any HTTPTransport {
  RewritingTransport<Item>(
    base: base, matches: { $0.method == "POST" && $0.path.hasSuffix("/messages") },
    rewrite: { $0.sequence = 1 })
}

/// Every conversation in a sync reply has an ID this client cannot read.
func unreadableSync(base: any HTTPTransport) -> any HTTPTransport {
  RewritingTransport<SyncResponse>(
    base: base, matches: { $0.path == "/v1/sync" },
    rewrite: { sync in
      for index in sync.conversations.indices { sync.conversations[index].id = "not/valid" }
    })
}
