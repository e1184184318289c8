import ChatAPI
import ChatTestSupport
import Support
import Testing

@testable import ChatServer

/// `LiveFanOut`: who hears an event (sockets in order, long polls for changes, other nodes),
/// and which sockets it closes.
@Suite struct LiveFanOutTests {
  let log = CapturingLogSink()

  /// A socket of `user` with room for `buffer` unread frames.
  struct Socket {
    let subscriber: LiveHub.Subscriber
    let events: AsyncStream<String>
    let ending: LiveEnding

    init(_ id: UInt64, _ user: String, family: String? = nil, buffer: Int = 8) {
      let (events, continuation) = AsyncStream<String>.makeStream(
        bufferingPolicy: .bufferingOldest(buffer))
      ending = LiveEnding()
      self.events = events
      subscriber = LiveHub.Subscriber(
        id: id, userId: user, deviceId: "phone", family: family, continuation: continuation,
        ending: ending, expiry: Task {})
    }

    /// The frames it holds, once it has ended.
    func frames() async -> [String] {
      var frames: [String] = []
      for await frame in events { frames.append(frame) }
      return frames
    }
  }

  func typing(_ user: String) -> LiveEvent {
    .typing(conversationId: "c", userId: user)
  }

  @Test func anEventGoesToEverySocketOfItsUsersInOrderAndNowhereElse() async {
    var fanOut = LiveFanOut(relay: nil, log: log)
    let sockets = [Socket(1, "bob"), Socket(2, "alice"), Socket(3, "bob"), Socket(4, "carol")]
    for socket in sockets { fanOut.add(socket.subscriber) }
    let closed = fanOut.publish(typing("x"), to: ["alice", "bob"])
    #expect(closed.isEmpty)
    #expect(fanOut.counters.eventsFannedOut == 3)
    for id in [1, 2, 3, 4] as [UInt64] { fanOut.close(id) }
    #expect(await sockets[0].frames() == [typing("x").text])
    #expect(await sockets[1].frames() == [typing("x").text])
    #expect(await sockets[2].frames() == [typing("x").text])
    #expect(await sockets[3].frames().isEmpty)
    #expect(sockets.allSatisfy { $0.ending.closure == nil })
  }

  @Test func nobodyListeningMeansTheEventIsNeverEncoded() {
    var fanOut = LiveFanOut(relay: nil, log: log)
    var encoded = false
    func event() -> LiveEvent {
      encoded = true
      return typing("x")
    }
    _ = fanOut.publish(event(), to: ["alice"])
    #expect(!encoded)
  }

  @Test func otherNodesHearEveryEventAndTypingIsNoChange() {
    let relay = RecordingRelay()
    var fanOut = LiveFanOut(relay: relay, log: log)
    _ = fanOut.publish(typing("bob"), to: ["alice"], isChange: false)
    #expect(
      relay.events == [RelayedEvent(users: ["alice"], frame: typing("bob").text, isChange: false)])
  }

  @Test func onlyAChangeWakesTheLongPollsOfItsUsers() {
    var fanOut = LiveFanOut(relay: nil, log: log)
    let poll = fanOut.longPolls.arm("alice")
    _ = fanOut.publish(typing("bob"), to: ["alice"], isChange: false)
    #expect(!fanOut.longPolls.isWoken(poll))
    _ = fanOut.deliverRelayed(RelayedEvent(users: ["alice"], frame: "{}", isChange: true))
    #expect(fanOut.longPolls.isWoken(poll))
    #expect(fanOut.counters.eventsRelayed == 1)
  }

  @Test func aSocketThatFellBehindIsClosedLoggedAndCounted() async {
    var fanOut = LiveFanOut(relay: nil, log: log)
    let slow = Socket(1, "bob", buffer: 1)
    let other = Socket(2, "bob")
    fanOut.add(slow.subscriber)
    fanOut.add(other.subscriber)
    let first = fanOut.publish(typing("a"), to: ["bob"])
    #expect(first.isEmpty)
    let second = fanOut.publish(typing("b"), to: ["bob"])
    #expect(second == [1])
    #expect(slow.ending.closure == .fellBehind)
    #expect(await slow.frames() == [typing("a").text])
    #expect(fanOut.hub.openCount == 1)
    #expect(fanOut.counters.subscriptionsDropped == 1)
    #expect(log.events == ["live_dropped"])
  }

  @Test func aRevokedFamilyClosesOnlyItsOwnSockets() {
    var fanOut = LiveFanOut(relay: nil, log: log)
    let revoked = Socket(1, "alice", family: "f1")
    let kept = Socket(2, "alice", family: "f2")
    fanOut.add(revoked.subscriber)
    fanOut.add(kept.subscriber)
    let closed = fanOut.signOut("f1", of: "alice")
    #expect(closed == [1])
    #expect(revoked.ending.closure == .signedOut)
    #expect(kept.ending.closure == nil)
  }

  @Test func theRelayBackAfterACutClosesEverySocketAndWakesEveryPoll() {
    var fanOut = LiveFanOut(relay: nil, log: log)
    let sockets = [Socket(1, "bob"), Socket(2, "alice")]
    for socket in sockets { fanOut.add(socket.subscriber) }
    let poll = fanOut.longPolls.arm("carol")
    let closed = fanOut.relayResumed()
    #expect(closed.sorted() == [1, 2])
    #expect(sockets.allSatisfy { $0.ending.closure == .catchUp })
    #expect(fanOut.longPolls.isWoken(poll))
    #expect(fanOut.hub.openCount == 0)
    #expect(fanOut.counters.relayResumes == 1)
  }
}
