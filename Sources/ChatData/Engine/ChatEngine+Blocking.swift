import ChatDomain
import ChatIdentifiers

// API.md Part 3, "Blocking": the list lives on the server, reaches every device of mine
// (`/v1/sync`, the `blocked` event), and hides the blocked users' messages in groups here.
extension ChatEngine {
  /// Blocks `user` for me on every device of mine: their posts in our one-to-one conversation
  /// are refused, no push comes for their messages, and groups show theirs as "Blocked
  /// message". Needs the server now (`ChatError.offline` without it); nothing is queued.
  public func block(_ user: UserID) async throws(ChatError) {
    try await conversationsSource.setBlocked(user, block: true)
  }

  /// Undoes `block(_:)`.
  public func unblock(_ user: UserID) async throws(ChatError) {
    try await conversationsSource.setBlocked(user, block: false)
  }

  /// The users I blocked, as this device last heard, sorted.
  public func blockedUsers() async throws(ChatError) -> [UserID] {
    do {
      return try await context.store.blockedUsers()
    } catch {
      throw error.chatError
    }
  }
}
