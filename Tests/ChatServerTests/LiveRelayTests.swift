import ChatAPI
import Foundation
import Support
import Synchronization
import Testing

@testable import ChatServer

/// The relay seam (`LiveRelay`): what a node hands the other nodes of its database, and what it
/// does with theirs. `NodeRelay`'s notifications: `ChatServerPostgresTests`; real nodes:
/// Tests/peers/contract/nodes.py and contract.py --nodes 2.
@Suite struct LiveRelayTests {
  static func sharedConfiguration() -> ServerConfiguration {
    var random = SplitMix64(seed: 5)
    return ServerConfiguration(
      devMode: true, rateLimit: nil, signingKey: SigningKey.generate(using: &random))
  }

  /// A family revoked on one node reaches another: there its access tokens are refused and its
  /// sockets close from then on.
  @Test func aFamilyRevokedOnOneNodeIsRevokedOnTheOthers() async throws {
    let configuration = Self.sharedConfiguration()
    let first = try TestServer(configuration: configuration)
    let other = try TestServer(configuration: configuration, seed: 2)
    let alice = try await first.login("alice")
    let socket = try await other.openLive(alice)
    let signer = await first.service.tokens.signer
    let family = try #require(signer.verify(alice.accessToken, now: TestServer.start)?.family)
    let revocation = RelayedRevocation(
      revoked: RevokedFamily(family: family, forgetAfter: TestServer.start + .seconds(900)),
      user: "alice")
    #expect(
      await other.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    await other.service.revokedElsewhere(revocation)
    #expect(
      await other.request("GET", "/v1/conversations", token: alice.accessToken).status == 401)
    for await _ in socket.events {}
    #expect(socket.closure == .signedOut)
  }

  /// Given two nodes joined by a relay, when a spent refresh token is presented again on one,
  /// then the other refuses that family's access tokens and closes its sockets too.
  @Test func aReusedRefreshTokenRevokesItsFamilyOnTheOtherNodeThroughTheRelay() async throws {
    let configuration = Self.sharedConfiguration()
    let other = try TestServer(configuration: configuration, seed: 2)
    let relay = RecordingRelay(deliveringTo: other.service)
    let first = try TestServer(configuration: configuration, relay: relay)
    let alice = try await first.login("alice")
    let socket = try await other.openLive(alice)
    let refresh = #"{"refreshToken":"\#(alice.refreshToken)"}"#
    #expect(await first.request("POST", "/v1/auth/refresh", body: refresh).status == 200)
    #expect(await first.request("POST", "/v1/auth/refresh", body: refresh).status == 401)
    #expect(relay.revocations.map(\.user) == ["alice"])
    // The relay's delivery is queued on the other node's executor before this request.
    #expect(
      await other.request("GET", "/v1/conversations", token: alice.accessToken).status == 401)
    for await _ in socket.events {}
    #expect(socket.closure == .signedOut)
  }

  /// Every event a node publishes goes to the relay with its recipients, after its own sockets;
  /// typing is not a change (it wakes no long poll on the other nodes).
  @Test func everyEventANodePublishesGoesToTheRelayWithItsRecipients() async throws {
    let relay = RecordingRelay()
    let server = try TestServer(relay: relay)
    let alice = try await server.login("alice")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    #expect(try await server.send("hello", to: conversation, as: alice).status == 201)
    let socket = try await server.openLive(alice)
    await server.service.receiveLiveFrame(
      #"{"type":"typing","conversationId":"\#(conversation)"}"#, on: socket.id)
    let events = relay.events
    // The message raised the sender's own receipt numbers: a receipts frame follows it.
    #expect(
      events.map { TestJSON.object($0.frame)["type"] as? String } == [
        "conversation", "message", "receipts", "typing",
      ])
    #expect(
      events.map(\.users) == [["alice", "bob"], ["alice", "bob"], ["alice", "bob"], ["bob"]])
    #expect(events.map(\.isChange) == [true, true, true, false])
  }

  /// Another node's event reaches this node's sockets of its users, and no one else's.
  @Test func anotherNodesEventReachesOnlyItsUsersSocketsHere() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    let aliceSocket = try await server.openLive(alice)
    let bobSocket = try await server.openLive(bob)
    let frame = #"{"type":"typing","conversationId":"c","userId":"carol"}"#
    await server.service.deliverRelayed(RelayedEvent(users: ["bob"], frame: frame, isChange: false))
    #expect(await server.drain(bobSocket).map { $0["userId"] as? String } == ["carol"])
    #expect(await server.drain(aliceSocket).isEmpty)
  }
}

/// A relay that keeps what the service forwards and, when given a service, hands it each
/// revocation at once, as another node's listener would. A start or stop is not expected of it
/// (the service never starts its relay: `ReferenceServer` does): either fails the test.
final class RecordingRelay: LiveRelay {
  private let forwarded = Mutex<(events: [RelayedEvent], revocations: [RelayedRevocation])>(
    ([], []))
  private let target: ChatService?

  init(deliveringTo target: ChatService? = nil) {
    self.target = target
  }

  var events: [RelayedEvent] { forwarded.withLock { $0.events } }
  var revocations: [RelayedRevocation] { forwarded.withLock { $0.revocations } }

  func start(delivering service: ChatService) {
    Issue.record("the service started its own relay")
  }

  func stop() {
    Issue.record("the service stopped its relay")
  }

  func forward(_ event: RelayedEvent) {
    forwarded.withLock { $0.events.append(event) }
  }

  func forward(_ revocation: RelayedRevocation) {
    forwarded.withLock { $0.revocations.append(revocation) }
    guard let target else { return }
    target.executor.spawn { await target.revokedElsewhere(revocation) }
  }
}

/// `NATSRelay` numbers each node's messages: a receiver that finds a number skipped (a server
/// that died with messages in it) says so, and its clients catch up.
@Suite struct RelaySequenceTests {
  @Test func theNextNumberIsDeliveredASkipResumesAndAnOldOneIsDropped() {
    var heard = RelaySequence()
    let heardInTurn = [
      ("a", 7), ("a", 8), ("b", 1), ("a", 10), ("a", 9), ("a", 11), ("b", 2), ("b", 2),
    ]
    .map { heard.heard(from: $0.0, number: UInt64($0.1)) }
    #expect(heardInTurn == [.next, .next, .next, .skipped, .stale, .next, .next, .stale])
  }

  /// A heartbeat carries a node's last number: the same as the last heard is nothing lost; a
  /// later one means its last messages were lost.
  @Test func aHeartbeatPastTheLastHeardIsASkip() {
    var heard = RelaySequence()
    #expect(heard.heard(from: "a", number: 3) == .next)
    #expect(heard.heard(from: "a", number: 3, heartbeat: true) == .next)
    #expect(heard.heard(from: "a", number: 5, heartbeat: true) == .skipped)
    #expect(heard.heard(from: "a", number: 6) == .next)
    #expect(heard.heard(from: "a", number: 4, heartbeat: true) == .stale)
  }

  /// After a reconnect the resume covers what was missed: the first number heard from each
  /// node starts its count again, and an older one than its last is still stale.
  @Test func afterAReconnectTheFirstNumberStartsTheCount() {
    var heard = RelaySequence()
    #expect(heard.heard(from: "a", number: 5) == .next)
    heard.forgetCounts()
    #expect(heard.heard(from: "a", number: 4) == .stale)
    #expect(heard.heard(from: "a", number: 9) == .next)
    #expect(heard.heard(from: "a", number: 11) == .skipped)
  }
}
