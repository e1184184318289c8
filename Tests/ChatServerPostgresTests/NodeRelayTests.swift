import ChatServer
import Support
import Testing

@testable import ChatServerPostgres

/// The notifications `NodeRelay` sends other nodes (PostgreSQL `NOTIFY`, in `RelayPayload`'s
/// form, which `NATSRelay` uses too); the relay between
/// real nodes is proven by Tests/peers/contract/nodes.py and contract.py --nodes 2.
@Suite struct NodeRelayTests {
  let event = NodeRelay.Event(
    users: ["alice", "bob"], frame: #"{"type":"typing","conversationId":"c","userId":"alice"}"#,
    isChange: false)

  @Test func anotherNodesSmallEventTravelsInTheNotification() throws {
    let payload = try #require(NodeRelay.inline(event, from: "node1"))
    #expect(RelayPayload.parse(payload, at: "node2") == .event(event))
  }

  @Test func aNodeSkipsItsOwnNotifications() throws {
    let payload = try #require(NodeRelay.inline(event, from: "node1"))
    #expect(RelayPayload.parse(payload, at: "node1") == nil)
  }

  @Test func anEventLargerThanANotificationGoesByRowId() {
    var large = event
    large.frame = String(repeating: "x", count: NodeRelay.inlineLimit)
    large.isChange = true
    #expect(NodeRelay.inline(large, from: "node1") == nil)
    let payload = RelayPayload.payload(row: "42", of: large, from: "node1")
    #expect(RelayPayload.parse(payload, at: "node2") == .row(id: "42", isChange: true))
  }

  /// A family revoked on one node reaches another in a notification (what the other node does
  /// with it: `LiveRelayTests.aFamilyRevokedOnOneNodeIsRevokedOnTheOthers`).
  @Test func aFamilyRevokedOnOneNodeTravelsInANotification() throws {
    let revocation = NodeRelay.Revocation(
      revoked: RevokedFamily(
        family: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b",
        forgetAfter: Timestamp(millisecondsSince1970: 1_796_048_223_123)),
      user: "alice")
    let payload = RelayPayload.payload(of: revocation, from: "node1")
    #expect(RelayPayload.parse(payload, at: "node1") == nil)
    guard case .revocation(let received) = RelayPayload.parse(payload, at: "node2") else {
      Issue.record("not read as a revocation: \(payload)")
      return
    }
    #expect(received == revocation)
  }

  @Test func malformedNotificationsAreIgnored() {
    for payload in [
      "", "node1", "node1 1", "node1 2 i\na\n{}", "node1 1 i\na", "node1 1 r x",
      "node1 1 r", "node1 1 q\na\n{}", "node1 0 x f\nalice", "node1 0 x f soon\nalice",
      "node1 0 x f 1",
    ] {
      #expect(RelayPayload.parse(payload, at: "node2") == nil, "\(payload)")
    }
  }
}
