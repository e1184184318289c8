import ChatIdentifiers
import SQLite

/// The `blocked_users` table (API.md Part 3, "Blocking"): the users I blocked, the whole list
/// as the server last answered it. In a group their messages show as "Blocked message"; in a
/// one-to-one conversation (two current members) nothing is hidden, since the server refuses
/// their posts there.
enum BlockedTable {
  /// The users I blocked.
  static func blocked(db: Database) throws -> Set<UserID> {
    Set(
      try db.query("SELECT user_id FROM blocked_users") { $0.string(0) }.compactMap {
        UserID(rawValue: $0)
      })
  }

  /// Whose messages `conversation` hides: the users I blocked, in a group; none in a
  /// one-to-one conversation.
  static func hidden(in conversation: ConversationRecord?, db: Database) throws -> Set<UserID> {
    guard let conversation, isGroup(conversation) else { return [] }
    return try blocked(db: db)
  }

  /// `hidden` with the list read already (the conversation list reads it once for all rows).
  static func hidden(in conversation: ConversationRecord, of blocked: Set<UserID>) -> Set<UserID> {
    isGroup(conversation) ? blocked : []
  }

  /// Not one-to-one: any other number of members than two.
  private static func isGroup(_ conversation: ConversationRecord) -> Bool {
    conversation.memberIDs.count != 2
  }

  /// Replaces the list with `users` (the server's whole list). When it changed, every
  /// conversation's observers hear of it: any of them may show the messages differently.
  static func replace(with users: Set<UserID>, tx: StoreTransaction) throws {
    guard try blocked(db: tx.db) != users else { return }
    try tx.db.run("DELETE FROM blocked_users")
    for user in users {
      try tx.db.run("INSERT INTO blocked_users (user_id) VALUES (?)", user.rawValue)
    }
    tx.touch(try tx.db.query("SELECT id FROM conversations") { $0.string(0) })
  }
}
