import ChatAPI
import ChatServer
import Testing
import Wire

@testable import ChatServer

@Suite struct LiveTests {
  let server: TestServer
  let alice: Session
  let aliceTablet: Session
  let bob: Session
  let carol: Session

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    aliceTablet = try await server.login("alice", device: "tablet")
    bob = try await server.login("bob")
    carol = try await server.login("carol")
  }

  @Test func aMessageAndTheSendersRaisedReceiptGoToEveryMemberDevice() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let phones = [
      try await server.openLive(alice), try await server.openLive(aliceTablet),
      try await server.openLive(bob),
    ]
    let stranger = try await server.openLive(carol)
    let sent = try await server.send("hello", to: conversation, as: alice)

    for subscription in phones {
      let events = await server.drain(subscription)
      #expect(events.count == 2, "\(subscription.userId)/\(subscription.deviceId)")
      let message = events.first
      #expect(message.map { Set($0.keys) } == ["type", "conversationId", "message"])
      #expect(message?["type"] as? String == "message")
      #expect(message?["conversationId"] as? String == conversation)
      let body = message?["message"] as? [String: Any]
      #expect(body?["text"] as? String == "hello")
      #expect(body?["sequence"] as? Int == 1)
      #expect(body?["id"] as? String == sent.object["id"] as? String)
      // The first change in a quiet receipts window goes at once.
      let receipt = events.last
      #expect(receipt.map { Set($0.keys) } == ["type", "conversationId", "members"])
      #expect(receipt?["type"] as? String == "receipts")
      let members = receipt?["members"] as? [[String: Any]]
      #expect(members?.map { $0["userId"] as? String } == ["alice"])
      #expect(members?.first?["deliveredUpTo"] as? Int == 1)
      #expect(members?.first?["readUpTo"] as? Int == 1)
    }
    #expect(await server.drain(stranger).isEmpty)
  }

  @Test func aRetryRecognisedGoesLiveOnlyOnce() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let subscription = try await server.openLive(bob)
    let key = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
    _ = try await server.send("hi", to: conversation, as: alice, clientMessageId: key)
    #expect(
      try await server.send("hi", to: conversation, as: alice, clientMessageId: key).status == 200)
    let types = await server.drain(subscription).compactMap { $0["type"] as? String }
    #expect(types == ["message", "receipts"])
  }

  @Test func aRaisedReceiptGoesToEveryMemberDeviceAndAnUnchangedOneToNobody() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    _ = try await server.send("one", to: conversation, as: alice)
    _ = try await server.send("two", to: conversation, as: alice)
    // Quiet: the windows of the sends are over.
    await server.endReceiptWindows()
    await server.endReceiptWindows()
    let subscriptions = [
      try await server.openLive(alice), try await server.openLive(aliceTablet),
      try await server.openLive(bob),
    ]
    let stranger = try await server.openLive(carol)
    let path = "/v1/conversations/\(conversation)"
    _ = await server.request(
      "POST", path + "/read", token: bob.accessToken, body: #"{"upToSequence":1}"#)
    _ = await server.request(
      "POST", path + "/delivered", token: bob.accessToken, body: #"{"upToSequence":1}"#)
    _ = await server.request(
      "POST", path + "/delivered", token: bob.accessToken, body: #"{"upToSequence":2}"#)
    await server.endReceiptWindows()
    for subscription in subscriptions {
      // The read at once; the second delivery at the end of its window; the unchanged one
      // never.
      let events = await server.drain(subscription)
      #expect(events.compactMap { $0["type"] as? String } == ["receipts", "receipts"])
      let members = events.compactMap { $0["members"] as? [[String: Any]] }.flatMap { $0 }
      #expect(members.compactMap { $0["userId"] as? String } == ["bob", "bob"])
      #expect(members.compactMap { $0["deliveredUpTo"] as? Int } == [1, 2])
      #expect(members.compactMap { $0["readUpTo"] as? Int } == [1, 1])
    }
    #expect(await server.drain(stranger).isEmpty)
  }

  /// API.md Part 2: at most one `receipts` frame per conversation per socket per 250 ms,
  /// carrying every member whose numbers changed in the window.
  @Test func aBurstOfReadsReachesTheSenderAsTwoFramesNotOnePerReader() async throws {
    var readers: [Session] = []
    for n in 1...40 { readers.append(try await server.login("reader\(n)")) }
    let conversation = try await server.createConversation(
      by: alice, with: readers.map(\.userId))
    _ = try await server.send("everyone read this", to: conversation, as: alice)
    await server.endReceiptWindows()
    await server.endReceiptWindows()
    let mine = try await server.openLive(alice)
    for reader in readers {
      _ = await server.request(
        "POST", "/v1/conversations/\(conversation)/read", token: reader.accessToken,
        body: #"{"upToSequence":1}"#)
    }
    await server.endReceiptWindows()
    let frames = await server.drain(mine)
    #expect(frames.compactMap { $0["type"] as? String } == ["receipts", "receipts"])
    let members = frames.compactMap { $0["members"] as? [[String: Any]] }
    #expect(members.map(\.count) == [1, 39])
    #expect(
      Set(members.flatMap { $0 }.compactMap { $0["userId"] as? String })
        == Set(readers.map(\.userId)))
  }

  @Test func aNewConversationIsAnnouncedToEachMemberDevice() async throws {
    let mine = try await server.openLive(alice)
    let bobs = try await server.openLive(bob)
    let carols = try await server.openLive(carol)
    let conversation = try await server.createConversation(
      by: alice, with: ["bob"], title: "Hiking")
    for subscription in [mine, bobs] {
      let events = await server.drain(subscription)
      #expect(events.count == 1)
      #expect(events.first?["type"] as? String == "conversation")
      let item = events.first?["conversation"] as? [String: Any]
      #expect(
        item.map { Set($0.keys) } == [
          "id", "title", "memberIds", "lastSequence", "readUpTo", "lastMessage", "createdAt",
          "visible", "membership", "createdBy", "unreadMentions", "mutedMentions", "pinned",
          "draft",
        ])
      #expect(item?["id"] as? String == conversation)
      #expect(item?["title"] as? String == "Hiking")
      #expect(item?["memberIds"] as? [String] == ["alice", "bob"])
    }
    #expect(await server.drain(carols).isEmpty)
  }

  @Test func typingIsRelayedToTheOtherMembersOnly() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let alicePhone = try await server.openLive(alice)
    let aliceTab = try await server.openLive(aliceTablet)
    let bobPhone = try await server.openLive(bob)
    let carolPhone = try await server.openLive(carol)
    await alicePhone.receive(#"{"type":"typing","conversationId":"\#(conversation)"}"#)
    let bobEvents = await server.drain(bobPhone)
    #expect(bobEvents.count == 1)
    #expect(bobEvents.first.map { Set($0.keys) } == ["type", "conversationId", "userId"])
    #expect(bobEvents.first?["type"] as? String == "typing")
    #expect(bobEvents.first?["conversationId"] as? String == conversation)
    #expect(bobEvents.first?["userId"] as? String == "alice")
    #expect(await server.drain(aliceTab).isEmpty, "not to the typist's own devices")
    #expect(await server.drain(carolPhone).isEmpty)
    #expect(try await server.rows("SELECT count(*) FROM messages") == [[.integer(0)]])
  }

  @Test func typingFromANonMemberOrAMalformedFrameIsIgnored() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let alicePhone = try await server.openLive(alice)
    let bobPhone = try await server.openLive(bob)
    let carolPhone = try await server.openLive(carol)
    let frames = [
      #"{"type":"typing","conversationId":"\#(conversation)"}"#,
      "not json",
      #"{"type":"typing"}"#,
      #"{"type":"typing","conversationId":"nope"}"#,
      #"{"type":"typing","conversationId":"00000000-0000-4000-8000-000000000000"}"#,
      #"{"type":"message","conversationId":"\#(conversation)"}"#,
      #"[]"#,
    ]
    for frame in frames { await carolPhone.receive(frame) }
    #expect(await server.drain(alicePhone).isEmpty)
    #expect(await server.drain(bobPhone).isEmpty)
    let metrics = await server.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_frames_ignored_total 7"))
  }

  @Test func anOpenSubscriptionOfANonMemberHearsNothingOfTheConversation() async throws {
    let stranger = try await server.openLive(carol)
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    _ = try await server.send("private", to: conversation, as: alice)
    _ = await server.request(
      "POST", "/v1/conversations/\(conversation)/read", token: bob.accessToken,
      body: #"{"upToSequence":1}"#)
    let bobPhone = try await server.openLive(bob)
    await bobPhone.receive(#"{"type":"typing","conversationId":"\#(conversation)"}"#)
    // Then something carol is meant to hear, so her stream is known to be flowing.
    let shared = try await server.createConversation(by: alice, with: ["carol"])
    let events = await server.drain(stranger)
    #expect(events.count == 1)
    #expect((events.first?["conversation"] as? [String: Any])?["id"] as? String == shared)
  }

  @Test func aClosedSubscriptionLeavesTheFanOutAndItsStreamEnds() async throws {
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let subscription = try await server.openLive(bob)
    await subscription.close()
    await subscription.close()
    _ = try await server.send("after close", to: conversation, as: alice)
    var iterator = subscription.events.makeAsyncIterator()
    #expect(await iterator.next() == nil)
    let metrics = await server.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_subscriptions_open 0"))
    #expect(metrics.contains("chat_live_events_total 0"))
  }

  @Test func cancellingTheListenerClosesTheSubscription() async throws {
    let subscription = try await server.openLive(bob)
    let events = subscription.events
    let listener = Task {
      for await _ in events {}
    }
    listener.cancel()
    await listener.value
    await server.executor.waitUntilIdle()
    let metrics = await server.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_subscriptions_open 0"))
  }

  @Test func aSubscriptionThatFallsTooFarBehindIsClosed() async throws {
    let small = try TestServer(
      configuration: ServerConfiguration(devMode: true, rateLimit: nil, liveEventBufferLimit: 3))
    let alice = try await small.login("alice")
    let bob = try await small.login("bob")
    let conversation = try await small.createConversation(by: alice, with: ["bob"])
    let slow = try await small.openLive(bob)
    for index in 1...3 { _ = try await small.send("m\(index)", to: conversation, as: alice) }
    var frames: [String] = []
    for await frame in slow.events { frames.append(frame) }
    #expect(frames.count == 3, "the buffer's worth, then the end")
    #expect(slow.closure == .fellBehind)
    let metrics = await small.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_subscriptions_dropped_total 1"))
    #expect(metrics.contains("chat_live_subscriptions_open 0"))
    #expect(small.log.records.contains { $0.event == "live_dropped" && $0["user"] == "bob" })
  }

  /// A socket lives as long as the access token it opened with, plus
  /// `liveTokenGrace`; then the service closes it, saying why, on its clock.
  @Test(.timeLimit(.minutes(1)))
  func aSocketClosesWhenItsTokenExpiredTheGraceAgo() async throws {
    var configuration = TestServer.defaultConfiguration
    configuration.accessTokenTTL = .seconds(60)
    configuration.liveTokenGrace = .seconds(5)
    let server = try TestServer(configuration: configuration)
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let socket = try await server.openLive(bob)
    server.clock.advance(by: .seconds(65) - .milliseconds(1))
    // A token refreshed meanwhile opens a new socket; this one still hears everything.
    let refreshed = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(alice.refreshToken)"}"#)
    let token = try #require(refreshed.object["accessToken"] as? String)
    var aliceNow = alice
    aliceNow.accessToken = token
    #expect(try await server.send("still open", to: conversation, as: aliceNow).status == 201)
    #expect(socket.closure == nil)
    server.clock.advance(by: .milliseconds(1))
    var frames: [String] = []
    for await frame in socket.events { frames.append(frame) }
    #expect(socket.closure == .tokenExpired)
    #expect(frames.contains { $0.contains("still open") })
    let metrics = await server.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_subscriptions_open 0"))
    #expect(
      ChatHTTPServer.closeFrame(for: .tokenExpired) == (
        ChatHTTPServer.authorizationEnded, "token expired"
      ))
  }

  @Test func theUpgradeIsRateLimitedAndOnlyForTheLivePath() async throws {
    let limited = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, rateLimit: RateLimit(burst: 1, perSecond: 1)))
    let alice = try await limited.login("alice")
    let headers: HeaderFields = ["authorization": "Bearer \(alice.accessToken)"]
    guard
      case .refused(let wrongPath) = await limited.service.openLive(
        APIRequest(method: "GET", path: "/v1/elsewhere", headers: headers))
    else {
      Issue.record("opened on another path")
      return
    }
    #expect(wrongPath.status == 404)
    guard
      case .refused(let limitedResponse) = await limited.service.openLive(
        APIRequest(method: "GET", path: "/v1/live", headers: headers))
    else {
      Issue.record("the rate limit did not apply")
      return
    }
    #expect(limitedResponse.status == 429)
    #expect(limitedResponse.headers["Retry-After"] == "1")
  }

  @Test func aPlainRequestToTheLivePathAsksForTheUpgrade() async throws {
    let response = await server.request("GET", "/v1/live", token: alice.accessToken)
    #expect(response.status == 400)
  }
}
