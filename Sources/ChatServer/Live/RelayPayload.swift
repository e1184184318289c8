import Support

/// How a relay carries this node's live events and revoked families to the other nodes: one
/// line of text each (`NodeRelay`'s notifications, `NATSRelay`'s messages), with the sending
/// node's id so that a node skips its own.
///
/// `<node> <1|0> i` LF `<users, comma-separated>` LF `<frame>`: the event itself (user ids
/// hold no comma, and a frame is one line of JSON); `<node> <1|0> r <id>`: the event is row
/// `id` of `live_relay`. 1: the event is a change (it wakes long polls). `<node> 0 x <family>
/// <forget after, ms>` LF `<user>`: a revoked refresh-token family (ids hold no space).
public enum RelayPayload {
  /// What a notification says, seen from `node`.
  public enum Parsed: Equatable, Sendable {
    case event(RelayedEvent)
    case row(id: String, isChange: Bool)
    case revocation(RelayedRevocation)
  }

  /// The message carrying `event` itself.
  public static func payload(of event: RelayedEvent, from node: String) -> String {
    "\(node) \(event.isChange ? 1 : 0) i\n\(event.users.joined(separator: ","))\n\(event.frame)"
  }

  /// The notification carrying a revoked family (always small).
  public static func payload(of revocation: RelayedRevocation, from node: String) -> String {
    "\(node) 0 x \(revocation.revoked.family) "
      + "\(revocation.revoked.forgetAfter.millisecondsSince1970)\n\(revocation.user)"
  }

  /// The notification pointing at row `id` of `live_relay`.
  public static func payload(row id: String, of event: RelayedEvent, from node: String) -> String {
    "\(node) \(event.isChange ? 1 : 0) r \(id)"
  }

  /// Another node's notification as `node` reads it; nil for its own, or a malformed one.
  public static func parse(_ payload: String, at node: String) -> Parsed? {
    let lines = payload.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    let header = lines[0].split(separator: " ")
    guard header.count >= 3, header[0] != node, header[1] == "1" || header[1] == "0" else {
      return nil
    }
    let isChange = header[1] == "1"
    switch header[2] {
    case "i" where lines.count == 3 && header.count == 3:
      return .event(
        RelayedEvent(
          users: lines[1].split(separator: ",").map(String.init), frame: String(lines[2]),
          isChange: isChange))
    case "r" where header.count == 4 && Int(header[3]) != nil:
      return .row(id: String(header[3]), isChange: isChange)
    case "x" where header.count == 5 && lines.count == 2:
      guard let forgetAfter = Int64(header[4]) else { return nil }
      return .revocation(
        RelayedRevocation(
          revoked: RevokedFamily(
            family: String(header[3]),
            forgetAfter: Timestamp(millisecondsSince1970: forgetAfter)),
          user: String(lines[1])))
    default:
      return nil
    }
  }
}
