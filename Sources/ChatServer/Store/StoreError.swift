/// What went wrong in the store, in the store's words: a rule that refused a write or a read,
/// or a database that failed. The store says nothing of HTTP; the service's error middleware
/// (`ChatService.failure(for:)`) says it in API.md's statuses and codes, in one place.
///
/// The refusals carry what the client is told, as the rule that refused knows it; the
/// failures carry a detail for the server's log only.
package enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
  // MARK: - Refusals: the request cannot pass as it is

  /// The conversation does not exist, or the user was never one of its members: one answer
  /// for both, so membership does not leak.
  case notAMember
  /// The user left or was removed: it may read what it saw, not act.
  case formerMember
  /// An idempotency key (a clientMessageId) sent again with another body.
  case keyReused
  /// A change or a query the rules refuse (an empty text, a group size, a range…), with the
  /// reason.
  case invalid(String)
  /// A change only someone else may make (another's message; removing others), with the
  /// reason.
  case notAllowed(String)
  /// Something the store cannot read (a cursor it never issued, a kind it does not store
  /// there), with the reason.
  case malformed(String)
  /// A refresh token that is unknown, expired, or spent (a reuse revokes its family instead).
  case unknownToken

  // MARK: - Failures: try again later

  /// The database cannot be reached; a write's outcome is unknown.
  case unreachable
  /// The write collided with others (the same key on two nodes at once, a deadlock) each time
  /// it ran; nothing was kept. With the database's SQLSTATE.
  case collidedTooOften(sqlState: String)
  /// The transaction that held the write (a group commit) failed as a whole; nothing of it
  /// was kept. With the database's reason.
  case commitFailed(String)
  /// Anything else (a broken statement, a row it cannot read), with the database's reason.
  case `internal`(String)

  package var description: String {
    switch self {
    case .notAMember: "not a member, or no such conversation"
    case .formerMember: "a former member"
    case .keyReused: "the idempotency key was reused with another body"
    case .invalid(let reason): "invalid: \(reason)"
    case .notAllowed(let reason): "not allowed: \(reason)"
    case .malformed(let reason): "malformed: \(reason)"
    case .unknownToken: "unknown, expired or spent refresh token"
    case .unreachable: "the database cannot be reached"
    case .collidedTooOften(let sqlState): "collided too often (\(sqlState))"
    case .commitFailed(let reason): "group commit failed: \(reason)"
    case .internal(let reason): reason
    }
  }
}
