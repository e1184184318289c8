import ChatAPI
import SQLite
import Support

extension ServerStore {
  /// Creates a conversation with `memberIds` (sorted, deduplicated, the creator included) and
  /// returns it as the creator sees it.
  func createConversation(
    id: String, title: String, memberIds: [String], createdBy creator: String,
    at createdAt: Timestamp
  ) async throws(ServiceError) -> ConversationItem {
    try await enqueueWrite { db in
      try db.run(
        """
        INSERT INTO conversations (id, title, created_at, last_activity_at, change_version)
        VALUES (?, ?, ?, ?, \(Self.nextChangeVersion))
        """, id, title, createdAt.millisecondsSince1970, createdAt.millisecondsSince1970)
      for member in memberIds {
        try db.run("INSERT INTO members (conversation_id, user_id) VALUES (?, ?)", id, member)
      }
      return ConversationItem(
        id: id, title: title, memberIds: memberIds, lastSequence: 0, readUpTo: 0,
        lastMessage: nil, createdAt: createdAt.rfc3339)
    }
  }

  /// The SQL for the next change version: one more than the highest, so every change (a
  /// creation, a message, a raised receipt) orders after every earlier one. `/v1/sync` cursors
  /// are change versions.
  static let nextChangeVersion =
    "(SELECT coalesce(max(change_version), 0) + 1 FROM conversations)"

  /// `user`'s conversations, newest activity first (the last message's `sentAt`, or
  /// `createdAt` when there is none; ties by id), only those changed after `cursor` when
  /// given; and the cursor that follows them.
  func conversations(
    of user: String, changedAfter cursor: Int?
  ) throws(ServiceError) -> (items: [ConversationItem], cursor: Int) {
    try reading {
      // User ids hold no comma, so the members travel as one comma-separated column.
      let items = try database.query(
        """
        SELECT c.id, c.title, c.created_at, c.last_sequence, me.read_up_to,
               (SELECT group_concat(user_id, ',') FROM members WHERE conversation_id = c.id),
               \(Self.messageColumns(table: "m"))
        FROM members AS me
        JOIN conversations AS c ON c.id = me.conversation_id
        LEFT JOIN messages AS m ON m.conversation_id = c.id AND m.sequence = c.last_message_sequence
        WHERE me.user_id = ? AND c.change_version > ?
        ORDER BY c.last_activity_at DESC, c.id
        """, user, cursor ?? 0
      ) { row in
        ConversationItem(
          id: row.string(0), title: row.string(1),
          memberIds: row.string(5).split(separator: ",").map(String.init).sorted(),
          lastSequence: row.int(3), readUpTo: row.int(4),
          lastMessage: row.isNull(6) ? nil : Self.message(from: row, at: 6),
          createdAt: Timestamp(millisecondsSince1970: Int64(row.int(2))).rfc3339)
      }
      let latest = try database.scalarInt("SELECT max(change_version) FROM conversations") ?? 0
      return (items, latest)
    }
  }
}
