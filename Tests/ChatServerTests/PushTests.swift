import ChatAPI
import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Support
import Testing

@testable import ChatServer

/// The push gateway seam, recording: every delivery in order, answered as the test says per
/// token (delivered unless told otherwise).
actor RecordingPushGateway: PushGateway {
  private(set) var deliveries: [PushDelivery] = []
  private var answers: [String: [PushGatewayAnswer]] = [:]

  /// The next deliveries to `token` get these answers, one each; then `delivered`.
  func answer(_ answers: [PushGatewayAnswer], for token: String) {
    self.answers[token] = answers
  }

  private var holding = false
  private var held: [CheckedContinuation<Void, Never>] = []

  /// Deliveries from now on wait (in flight) until `release()`.
  func hold() { holding = true }

  func release() {
    holding = false
    for waiter in held { waiter.resume() }
    held.removeAll()
  }

  var heldCount: Int { held.count }

  func deliver(_ delivery: PushDelivery) async -> PushGatewayAnswer {
    deliveries.append(delivery)
    if holding { await withCheckedContinuation { held.append($0) } }
    guard var queued = answers[delivery.token], !queued.isEmpty else { return .delivered }
    let answer = queued.removeFirst()
    answers[delivery.token] = queued
    return answer
  }

  func deliveries(to token: String) -> [PushDelivery] {
    deliveries.filter { $0.token == token }
  }
}

extension TestServer {
  convenience init(pushGateway: RecordingPushGateway, location: ServerStore.Location = .memory)
    throws
  {
    try self.init(location: location, pushGateway: pushGateway as any PushGateway)
  }

  func registerPush(_ session: Session, token: String, provider: String = "webhook") async
    -> Int
  {
    await request(
      "PUT", "/v1/devices/me/push", token: session.accessToken,
      body: #"{"provider":"\#(provider)","token":"\#(token)"}"#
    ).status
  }

  /// Runs the push work due now to its end: the dispatcher's round, and every delivery it
  /// started with its result saved.
  func settlePushes() async {
    while true {
      let work = await service.pushes?.work() ?? []
      guard !work.isEmpty else { return }
      for task in work { await task.value }
    }
  }

  /// Moves the clock by `duration` and settles what became due.
  func advancePushes(by duration: Duration) async {
    clock.advance(by: duration)
    await settlePushes()
  }

  func metric(_ name: String) async -> Int? {
    let page = await request("GET", "/metrics").text
    let line = page.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") }
  }
}

@Suite struct PushTests {
  let gateway = RecordingPushGateway()
  let server: TestServer
  let alice: Session
  let bob: Session
  let carol: Session
  let group: String

  init() async throws {
    server = try TestServer(pushGateway: gateway)
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    carol = try await server.login("carol")
    group = try await server.createConversation(by: alice, with: ["bob", "carol"], title: "Hiking")
  }

  @Test func tokensAreCheckedAndStoredPerDevice() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    #expect(await server.registerPush(bob, token: "bob-phone-2", provider: "apns") == 204)
    #expect(await server.registerPush(bob, token: "x", provider: "pager") == 422)
    #expect(await server.registerPush(bob, token: "") == 422)
    #expect(
      await server.registerPush(bob, token: String(repeating: "t", count: 4_097)) == 422)
    let notString = await server.request(
      "PUT", "/v1/devices/me/push", token: bob.accessToken,
      body: #"{"provider":"apns","token":5}"#)
    #expect(notString.status == 400)
    let anonymous = await server.request(
      "PUT", "/v1/devices/me/push", body: #"{"provider":"apns","token":"t"}"#)
    #expect(anonymous.status == 401)
    let rows = try await server.rows("SELECT user_id, device_id, provider, token FROM push_tokens")
    #expect(rows == [[.text("bob"), .text("phone"), .text("apns"), .text("bob-phone-2")]])
    let removed = await server.request(
      "DELETE", "/v1/devices/me/push", token: bob.accessToken)
    #expect(removed.status == 204)
    #expect(try await server.rows("SELECT * FROM push_tokens").isEmpty)
    let again = await server.request("DELETE", "/v1/devices/me/push", token: bob.accessToken)
    #expect(again.status == 204)
  }

  @Test func aTokenBelongsToOneDeviceOfOneUser() async throws {
    // bob's phone changed hands without signing out: carol registers the same token.
    #expect(await server.registerPush(bob, token: "the-phone") == 204)
    #expect(await server.registerPush(carol, token: "the-phone") == 204)
    let rows = try await server.rows("SELECT user_id FROM push_tokens")
    #expect(rows == [[.text("carol")]])
    _ = try await server.send("for bob and carol", to: group, as: alice)
    await server.settlePushes()
    // One push, carol's: bob's notifications never reach the phone any more.
    #expect(await gateway.deliveries.map(\.payload.aps.badge) == [1])
    #expect(await gateway.deliveries.count == 1)
  }

  @Test func aPushRefusedWhileANewerOneCameLeavesTheNewerDueNowNotAfterTheLease() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    await gateway.hold()
    _ = try await server.send("one", to: group, as: alice)
    // The push of "one" is in flight (its row leased for a minute) when "two" comes.
    while await gateway.heldCount == 0 { await Task.yield() }
    _ = try await server.send("two", to: group, as: alice)
    await gateway.answer([.refused(status: 400)], for: "bob-phone")
    await gateway.release()
    await server.settlePushes()
    // No push went, so no window to wait: "two" goes at once, not when the lease ends.
    #expect(await gateway.deliveries.map(\.payload.sequence) == [1, 2])
  }

  @Test func aMessagePushesTheOtherMembersWithTitleBodyBadgeAndThread() async throws {
    #expect(await server.registerPush(alice, token: "alice-phone") == 204)
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    let sent = try await server.send("On my way", to: group, as: alice)
    #expect(sent.status == 201)
    await server.settlePushes()
    let pushes = await gateway.deliveries
    #expect(pushes.count == 1)
    let push = try #require(pushes.first)
    #expect(push.token == "bob-phone")
    #expect(push.provider == .webhook)
    #expect(push.collapseId == group)
    #expect(push.payload.conversationId == group)
    #expect(push.payload.sequence == 1)
    #expect(push.payload.aps.threadId == group)
    #expect(push.payload.aps.alert == PushPayload.Alert(title: "Hiking", body: "alice: On my way"))
    #expect(push.payload.aps.badge == 1)
    // The wire shape is APNs's: "thread-id".
    let json = String(decoding: APICoding.encode(push), as: UTF8.self)
    #expect(json.contains(#""thread-id":"\#(group)""#))
    #expect(await server.metric("chat_pushes_sent_total") == 1)
  }

  @Test func theBadgeCountsUnreadOfUnmutedConversationsOnly() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    let pair = try await server.createConversation(by: carol, with: ["bob"], title: "")
    let quiet = try await server.createConversation(by: carol, with: ["bob"], title: "Quiet")
    let mute = await server.request(
      "PUT", "/v1/conversations/\(quiet)/mute", token: bob.accessToken,
      body: #"{"until":"forever"}"#)
    #expect(mute.status == 204)
    _ = try await server.send("in the muted one", to: quiet, as: carol)
    _ = try await server.send("one", to: group, as: alice)
    _ = try await server.send("two", to: group, as: carol)
    let read = await server.request(
      "POST", "/v1/conversations/\(group)/read", token: bob.accessToken,
      body: #"{"upToSequence":1}"#)
    #expect(read.status == 204)
    await server.advancePushes(by: .seconds(2))
    let long = String(repeating: "é", count: 120)
    _ = try await server.send(long, to: pair, as: carol)
    await server.settlePushes()
    let last = try #require(await gateway.deliveries.last)
    // One-to-one: no title, so the sender's id; the text cut to 100 characters.
    #expect(last.payload.aps.alert.title == "carol")
    #expect(last.payload.aps.alert.body == "carol: " + String(repeating: "é", count: 99) + "…")
    // Unread: "two" in the group (bob read "one") and this one; not the muted conversation's.
    #expect(last.payload.aps.badge == 2)
    #expect(await gateway.deliveries.allSatisfy { $0.collapseId != quiet })
  }

  @Test func noPushToTheSenderAMutedMemberOrADeviceWithASocketOpen() async throws {
    #expect(await server.registerPush(alice, token: "alice-phone") == 204)
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    #expect(await server.registerPush(carol, token: "carol-phone") == 204)
    let carolTablet = try await server.login("carol", device: "tablet")
    #expect(await server.registerPush(carolTablet, token: "carol-tablet") == 204)
    let mute = await server.request(
      "PUT", "/v1/conversations/\(group)/mute", token: bob.accessToken,
      body: #"{"until":"2099-01-01T00:00:00.000Z"}"#)
    #expect(mute.status == 204)
    let socket = try await server.openLive(carol)
    _ = try await server.send("hello", to: group, as: alice)
    // Queued in the message's own transaction: only carol's tablet is owed one.
    let owed = try await server.rows("SELECT user_id, device_id FROM push_queue")
    #expect(owed == [[.text("carol"), .text("tablet")]])
    await server.settlePushes()
    #expect(await gateway.deliveries.map(\.token) == ["carol-tablet"])
    await socket.close()
  }

  @Test func aBurstCollapsesToOnePushPerWindowTheNewestWinning() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    for number in 1...30 {
      _ = try await server.send("message \(number)", to: group, as: alice)
    }
    await server.settlePushes()
    #expect(await gateway.deliveries.map(\.payload.sequence) == [1])
    await server.advancePushes(by: .milliseconds(1_999))
    #expect(await gateway.deliveries.count == 1)
    await server.advancePushes(by: .milliseconds(1))
    let pushes = await gateway.deliveries
    #expect(pushes.map(\.payload.sequence) == [1, 30])
    #expect(pushes.last?.payload.aps.alert.body == "alice: message 30")
    #expect(await server.metric("chat_pushes_collapsed_total") == 28)
    // Quiet for a window: the next message goes at once.
    await server.advancePushes(by: .seconds(2))
    _ = try await server.send("later", to: group, as: alice)
    await server.settlePushes()
    #expect(await gateway.deliveries.map(\.payload.sequence) == [1, 30, 31])
  }

  @Test func aGone410ForgetsTheTokenAndWhatItWasOwed() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    await gateway.answer([.tokenGone], for: "bob-phone")
    _ = try await server.send("one", to: group, as: alice)
    await server.settlePushes()
    #expect(try await server.rows("SELECT * FROM push_tokens").isEmpty)
    #expect(try await server.rows("SELECT * FROM push_queue").isEmpty)
    _ = try await server.send("two", to: group, as: alice)
    await server.advancePushes(by: .seconds(5))
    #expect(await gateway.deliveries.count == 1)
    #expect(await server.metric("chat_push_tokens_removed_total") == 1)
  }

  @Test func aServerErrorIsRetriedWithBackoffAndARefusalDropped() async throws {
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
    #expect(await server.registerPush(carol, token: "carol-phone") == 204)
    await gateway.answer(
      [.temporaryFailure("HTTP 503"), .temporaryFailure("HTTP 502")], for: "bob-phone")
    await gateway.answer([.refused(status: 400)], for: "carol-phone")
    _ = try await server.send("one", to: group, as: alice)
    await server.settlePushes()
    #expect(await gateway.deliveries(to: "bob-phone").count == 1)
    // The first retry waits between 0.5 and 1 s, the second between 1 and 2 s.
    await server.advancePushes(by: .seconds(1))
    #expect(await gateway.deliveries(to: "bob-phone").count == 2)
    await server.advancePushes(by: .seconds(2))
    #expect(await gateway.deliveries(to: "bob-phone").count == 3)
    #expect(await gateway.deliveries(to: "bob-phone").map(\.payload.sequence) == [1, 1, 1])
    #expect(await gateway.deliveries(to: "carol-phone").count == 1)
    #expect(await server.metric("chat_pushes_sent_total") == 1)
    #expect(await server.metric("chat_pushes_failed_total") == 1)
    #expect(await server.metric("chat_push_retries_total") == 2)
  }

  @Test func aPushOwedIsSentAfterARestartOnceForItsWindow() async throws {
    let folder = try TemporaryFolder()
    let location = ServerStore.Location.file(path: folder.path + "/chat.sqlite")
    var configuration = TestServer.defaultConfiguration
    configuration.signingKey = try SigningKey(bytes: Array(repeating: 7, count: 32))
    let clock = ManualClock(wallClock: TestServer.start)
    let firstGateway = RecordingPushGateway()
    do {
      let first = try TestServer(
        configuration: configuration, location: location, clock: clock,
        pushGateway: firstGateway as any PushGateway)
      let alice = try await first.login("alice")
      let bob = try await first.login("bob")
      #expect(await first.registerPush(bob, token: "bob-phone") == 204)
      let pair = try await first.createConversation(by: alice, with: ["bob"])
      _ = try await first.send("one", to: pair, as: alice)
      await first.settlePushes()
      _ = try await first.send("two", to: pair, as: alice)
      await first.service.stopPushes()
      #expect(await firstGateway.deliveries.map(\.payload.sequence) == [1])
    }
    let secondGateway = RecordingPushGateway()
    let second = try TestServer(
      configuration: configuration, location: location, clock: clock,
      pushGateway: secondGateway as any PushGateway)
    await second.service.startPushes()
    await second.settlePushes()
    // Still inside the window of the first push: nothing yet.
    #expect(await secondGateway.deliveries.isEmpty)
    await second.advancePushes(by: .seconds(2))
    #expect(await secondGateway.deliveries.map(\.payload.sequence) == [2])
    await second.advancePushes(by: .seconds(10))
    #expect(await secondGateway.deliveries.count == 1)
  }
}
