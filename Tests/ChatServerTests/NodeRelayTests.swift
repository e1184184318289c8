import ChatServer
import Support
import Testing

@testable import ChatServer

/// The notifications `NodeRelay` sends other nodes (PostgreSQL `NOTIFY`); the relay between
/// real nodes is proven by Tests/peers/contract/nodes.py and contract.py --nodes 2.
@Suite struct NodeRelayTests {
  let event = NodeRelay.Event(
    users: ["alice", "bob"], frame: #"{"type":"typing","conversationId":"c","userId":"alice"}"#,
    isChange: false)

  @Test func anotherNodesSmallEventTravelsInTheNotification() throws {
    let payload = try #require(NodeRelay.payload(of: event, from: "node1"))
    #expect(NodeRelay.parse(payload, at: "node2") == .event(event))
  }

  @Test func aNodeSkipsItsOwnNotifications() throws {
    let payload = try #require(NodeRelay.payload(of: event, from: "node1"))
    #expect(NodeRelay.parse(payload, at: "node1") == nil)
  }

  @Test func anEventLargerThanANotificationGoesByRowId() {
    var large = event
    large.frame = String(repeating: "x", count: NodeRelay.inlineLimit)
    large.isChange = true
    #expect(NodeRelay.payload(of: large, from: "node1") == nil)
    let payload = NodeRelay.payload(row: "42", of: large, from: "node1")
    #expect(NodeRelay.parse(payload, at: "node2") == .row(id: "42", isChange: true))
  }

  /// A family revoked on one node reaches another in a notification; there its access tokens
  /// are refused and its sockets close from then on.
  @Test func aFamilyRevokedOnOneNodeIsRevokedOnTheOthers() async throws {
    var random = SplitMix64(seed: 5)
    let key = SigningKey.generate(using: &random)
    let configuration = ServerConfiguration(devMode: true, rateLimit: nil, signingKey: key)
    let first = try TestServer(configuration: configuration)
    let other = try TestServer(configuration: configuration, seed: 2)
    let alice = try await first.login("alice")
    let socket = try await other.openLive(alice)
    let signer = await first.service.signer
    let family = try #require(signer.verify(alice.accessToken, now: TestServer.start)?.family)
    let revocation = NodeRelay.Revocation(
      revoked: RevokedFamily(family: family, forgetAfter: TestServer.start + .seconds(900)),
      user: "alice")
    let payload = NodeRelay.payload(of: revocation, from: "node1")
    #expect(NodeRelay.parse(payload, at: "node1") == nil)
    guard case .revocation(let received) = NodeRelay.parse(payload, at: "node2") else {
      Issue.record("not read as a revocation: \(payload)")
      return
    }
    #expect(received == revocation)
    #expect(
      await other.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    await other.service.revokedElsewhere(received)
    #expect(
      await other.request("GET", "/v1/conversations", token: alice.accessToken).status == 401)
    for await _ in socket.events {}
    #expect(socket.closure == .signedOut)
  }

  @Test func malformedNotificationsAreIgnored() {
    for payload in [
      "", "node1", "node1 1", "node1 2 i\na\n{}", "node1 1 i\na", "node1 1 r x",
      "node1 1 r", "node1 1 q\na\n{}", "node1 0 x f\nalice", "node1 0 x f soon\nalice",
      "node1 0 x f 1",
    ] {
      #expect(NodeRelay.parse(payload, at: "node2") == nil, "\(payload)")
    }
  }
}
