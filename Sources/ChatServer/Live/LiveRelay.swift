import Support

/// Hands this node's live events and revoked token families to the other `chat-server` nodes
/// of its database, and theirs to this node's `ChatService`: the seam between one node and the
/// others. A node alone has none; `NodeRelay` (`ChatServerPostgres`, PostgreSQL's
/// `LISTEN`/`NOTIFY`) is the one `chat-server` starts with `--database`.
///
/// What a relay promises: events it forwards reach the other nodes in the order forwarded,
/// and it delivers the other nodes' to the service in the order they came, one job each on
/// the service's executor (`deliverRelayed`, `revokedElsewhere`). When it may have missed
/// some (its connection was cut), it says so once it is back (`relayResumed`): the service
/// then closes its sockets and wakes its long polls, and each client catches up. Nothing
/// acknowledged depends on a relay: the items are in the database first.
public protocol LiveRelay: Sendable {
  /// Starts relaying; the other nodes' events and revocations go to `service`.
  func start(delivering service: ChatService)

  /// Stops relaying (a server that stops).
  func stop()

  /// Queues an event this node published, for the other nodes.
  func forward(_ event: RelayedEvent)

  /// Queues a token family this node revoked, for the other nodes.
  func forward(_ revocation: RelayedRevocation)
}

/// A live event for other nodes' sockets: the frame, for these users (already checked for
/// membership and visibility by the node that published it).
public struct RelayedEvent: Sendable, Equatable {
  public var users: [String]
  public var frame: String
  /// A change `/v1/sync` shows (it wakes long polls); typing is not.
  public var isChange: Bool

  public init(users: [String], frame: String, isChange: Bool) {
    self.users = users
    self.frame = frame
    self.isChange = isChange
  }
}

/// A refresh-token family revoked on one node, for the others: they refuse its access tokens
/// and close its sockets too.
public struct RelayedRevocation: Sendable, Equatable {
  public var revoked: RevokedFamily
  /// Whose family it is.
  public var user: String

  public init(revoked: RevokedFamily, user: String) {
    self.revoked = revoked
    self.user = user
  }
}
