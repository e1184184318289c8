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

  @Test func malformedNotificationsAreIgnored() {
    for payload in [
      "", "node1", "node1 1", "node1 2 i\na\n{}", "node1 1 i\na", "node1 1 r x",
      "node1 1 r", "node1 1 q\na\n{}",
    ] {
      #expect(NodeRelay.parse(payload, at: "node2") == nil, "\(payload)")
    }
  }
}
