import ChatDomain
import ChatIdentifiers
import SQLite

/// The conversation list (`ConversationListRow`): newest activity first, each with its last
/// message (an unsent one of mine counts) and unread count.
///
/// Unread is `newest sequence − my read number`. It needs no message rows, so it is right on a
/// device that has fetched nothing yet, and my own messages never count, because posting
/// raises my read number (API.md, Messages).
enum ConversationListQuery {
  /// Every conversation's row, newest activity first.
  /// `countsReadMentions`: the known bug `mentionsIgnoreRead`.
  static func rows(me: UserID, countsReadMentions: Bool = false, db: Database) throws
    -> [ConversationListRow]
  {
    let conversations = try db.query("SELECT \(ConversationsTable.columns) FROM conversations") {
      ConversationsTable.record($0)
    }.compactMap { $0 }
    let blocked = try BlockedTable.blocked(db: db)
    return try conversations.map {
      try row(for: $0, me: me, blocked: blocked, countsReadMentions: countsReadMentions, db: db)
    }.sorted { lhs, rhs in
      let left = lhs.lastMessage?.sentAt ?? lhs.conversation.createdAt
      let right = rhs.lastMessage?.sentAt ?? rhs.conversation.createdAt
      return left != right ? left > right : lhs.conversation.id < rhs.conversation.id
    }
  }

  /// One conversation's row; nil when the conversation is unknown.
  static func row(
    _ id: ConversationID, me: UserID, countsReadMentions: Bool = false, db: Database
  ) throws -> ConversationListRow? {
    guard let conversation = try ConversationsTable.conversation(id, db: db) else { return nil }
    return try row(
      for: conversation, me: me, blocked: try BlockedTable.blocked(db: db),
      countsReadMentions: countsReadMentions, db: db)
  }

  private static func row(
    for conversation: ConversationRecord, me: UserID, blocked: Set<UserID>,
    countsReadMentions: Bool, db: Database
  ) throws
    -> ConversationListRow
  {
    // Two index lookups, not a sort of the whole conversation: my newest unsent message, and
    // the message with the highest sequence (the last one shown when nothing is unsent).
    let unsent =
      try db.query(
        """
        SELECT \(MessagesTable.columns) FROM messages
        WHERE conversation_id = ? AND sequence IS NULL AND kind = 'message' ORDER BY client_id DESC LIMIT 1
        """, conversation.id.rawValue
      ) { MessagesTable.record($0) }.first ?? nil
    let newestSent =
      try db.query(
        """
        SELECT \(MessagesTable.columns) FROM messages
        WHERE conversation_id = ? AND sequence IS NOT NULL AND kind = 'message'
        ORDER BY sequence DESC LIMIT 1
        """, conversation.id.rawValue
      ) { MessagesTable.record($0) }.first ?? nil
    let last = unsent ?? newestSent
    let newestHeld = try MessagesTable.newestSequence(in: conversation.id, db: db) ?? 0
    // Unread counts messages (API.md Part 2): every sequence above my read number, less the
    // held items that are not messages (an edit, a delete). One not yet held counts, as the
    // newest-first list cannot know its kind.
    // The unread messages that mention me (API.md Part 3) are counted in the same walk.
    let (changesAbove, mentionsAbove) =
      try db.query(
        """
        SELECT count(*) FILTER (WHERE kind != 'message' AND sequence > ?3),
          count(*) FILTER (WHERE kind = 'message' AND deleted = 0 AND mentions IS NOT NULL
            AND instr(',' || mentions || ',', ',' || ?1 || ',') > 0)
        FROM messages WHERE conversation_id = ?2 AND sequence > ?4
        """, me.rawValue, conversation.id.rawValue, conversation.readUpTo,
        countsReadMentions ? 0 : conversation.readUpTo,
        map: { ($0.int(0), $0.int(1)) }
      ).first ?? (0, 0)
    let receipts = try ReceiptsTable.receipts(conversation.id, db: db)
    let newest = max(conversation.lastSequence, newestHeld)
    // Held up to the newest: counted here, so reading here lowers it at once. Otherwise some
    // unread messages are not here yet: the server's count as of its last answer, until I
    // have read everything.
    let holdsAllUnread = (conversation.syncedUpTo ?? 0) >= newest
    let unreadMentions =
      holdsAllUnread || conversation.readUpTo >= newest
      ? mentionsAbove : max(mentionsAbove, conversation.unreadMentions)
    return ConversationListRow(
      conversation: conversation, lastMessage: last, receipts: receipts,
      unreadCount: max(0, newest - conversation.readUpTo - changesAbove),
      unreadMentions: unreadMentions,
      pins: try MessagesTable.pins(conversation.pinned, in: conversation.id, db: db),
      blocked: BlockedTable.hidden(in: conversation, of: blocked))
  }
}
