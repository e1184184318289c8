import ChatAPI
import SQLite
import Support

extension ServerStore {
  /// Creates a conversation with `memberIds` (sorted, deduplicated, the creator included) and
  /// returns it as the creator sees it.
  func createConversation(
    id: String, title: String, memberIds: [String], createdBy creator: String,
    at createdAt: Timestamp
  ) async throws(StoreError) -> ConversationItem {
    try await writing { db in
      try db.run(
        """
        INSERT INTO conversations (id, title, created_at, last_activity_at, change_version,
                                   created_by)
        VALUES (?, ?, ?, ?, \(db.dialect.firstChangeVersion), ?)
        """, id, title, createdAt.millisecondsSince1970, createdAt.millisecondsSince1970,
        creator)
      for member in memberIds {
        try db.run("INSERT INTO members (conversation_id, user_id) VALUES (?, ?)", id, member)
        try db.run(
          "INSERT INTO member_ranges (conversation_id, user_id, first_sequence) VALUES (?, ?, 1)",
          id, member)
      }
      return ConversationItem(
        id: id, title: title, memberIds: memberIds, lastSequence: 0, readUpTo: 0,
        lastMessage: nil, createdAt: createdAt.rfc3339,
        visible: [VisibleRange(first: 1, last: nil)], membership: .member, createdBy: creator,
        unreadMentions: 0, mutedMentions: .push, pinned: [])
    }
  }

  /// `user`'s conversations, newest activity first (the last message's `sentAt`, or
  /// `createdAt` when there is none; ties by id), only those changed after `cursor` when
  /// given; and the cursor that follows them. A former member's are there too, as it saw
  /// them: its numbers and last message end where its last visible range ends.
  func conversations(
    of user: String, changedAfter cursor: String?
  ) async throws(StoreError) -> (items: [ConversationItem], cursor: String) {
    try await reading { db in try Self.conversations(db, of: user, changedAfter: cursor) }
  }

  /// Mutes `conversation` for `user` (all its devices) until `until` (RFC 3339 or `forever`),
  /// or unmutes it (nil), with what the mute does to mentions; returns the conversation as
  /// `user` now sees it, for its own sockets. Anyone who is or was a member mutes (else 404).
  func mute(
    _ conversation: String, for user: String, until: String?, mentions: MentionPushes = .push
  ) async throws(StoreError) -> ConversationItem? {
    try await writing { db in
      try db.lockConversation(conversation)
      _ = try Self.memberIds(db, of: conversation, formerAllowed: user)
      try db.run(
        """
        UPDATE members SET muted_until = ?, muted_mentions = ?
        WHERE conversation_id = ? AND user_id = ?
        """, until, mentions.rawValue, conversation, user)
      try db.run(
        "UPDATE conversations SET \(db.dialect.markChanged) WHERE id = ?",
        conversation)
      return try Self.conversations(db, of: user, changedAfter: nil, only: conversation).items
        .first
    }
  }

  /// `conversations(of:changedAfter:)` on `db`; only `conversation` when given.
  static func conversations(
    _ database: any StoreDatabase, of user: String, changedAfter cursor: String?,
    only conversation: String? = nil
  ) throws -> (items: [ConversationItem], cursor: String) {
    let dialect = database.dialect
    guard cursor.map(dialect.isCursor) ?? true else {
      throw StoreError.malformed("cursor is not one this server issued.")
    }
    // First: on PostgreSQL the cursor is this transaction's snapshot.
    let next = try database.query(dialect.cursorQuery) { $0.optionalString(0) }.first ?? nil
    let changed = dialect.changed(since: cursor, alias: "c")
    // User ids hold no comma, so the members travel as one comma-separated column, and the
    // caller's ranges as `first:last` pairs.
    var items = try database.query(
      """
      SELECT c.id, c.title, c.created_at, c.last_sequence, me.read_up_to,
             (SELECT \(database.dialect.joined("user_id", separator: "','")) FROM members
              WHERE conversation_id = c.id AND membership = 'member'),
             me.membership, c.created_by, c.last_message_sequence, me.muted_until,
             (SELECT \(database.dialect.joined(
                "first_sequence || ':' || coalesce(CAST(last_sequence AS TEXT), '')",
                separator: "','"))
              FROM member_ranges WHERE conversation_id = c.id AND user_id = me.user_id),
             (SELECT count(*) FROM messages AS u
              WHERE u.conversation_id = c.id AND u.sequence > me.read_up_to
                AND u.kind = 'message' AND u.deleted = 0 AND u.mentions IS NOT NULL
                AND \(dialect.contains("',' || u.mentions || ','", "',' || me.user_id || ','"))),
             me.muted_mentions,
             (SELECT \(database.dialect.joined(
                "CAST(pinned_at AS TEXT) || ':' || CAST(sequence AS TEXT) || ':' || client_message_id",
                separator: "','"))
              FROM messages WHERE conversation_id = c.id AND pinned_at IS NOT NULL),
             d.text, d.reply_to, d.version, d.updated_at,
             \(messageColumns(table: "m"))
      FROM members AS me
      JOIN conversations AS c ON c.id = me.conversation_id
      LEFT JOIN drafts AS d ON d.conversation_id = c.id AND d.user_id = me.user_id
      LEFT JOIN messages AS m ON m.conversation_id = c.id AND m.sequence = c.last_message_sequence
      WHERE me.user_id = ? AND \(changed.sql) AND (CAST(? AS TEXT) IS NULL OR c.id = ?)
      ORDER BY c.last_activity_at DESC, c.id
      """, values: [user] + changed.values + [conversation, conversation]
    ) { row -> (ConversationItem, Standing, Int) in
      let standing = Standing(
        membership: Membership(rawValue: row.string(6)) ?? .member,
        ranges: ranges(from: row.optionalString(10) ?? ""))
      let lastSequence = min(row.int(3), standing.lastVisible ?? Int.max)
      let item = ConversationItem(
        id: row.string(0), title: row.string(1),
        memberIds: (row.optionalString(5) ?? "").split(separator: ",").map(String.init)
          .sorted(),
        lastSequence: lastSequence, readUpTo: min(row.int(4), lastSequence),
        lastMessage: row.isNull(18)
          ? nil : hidingQuotes([message(from: row, at: 18)], from: standing).first,
        createdAt: Timestamp(millisecondsSince1970: Int64(row.int(2))).rfc3339,
        visible: standing.ranges, membership: standing.membership,
        createdBy: row.optionalString(7), mutedUntil: row.optionalString(9),
        unreadMentions: row.int(11), mutedMentions: MentionPushes(rawValue: row.string(12)),
        pinned: pinned(from: row.optionalString(13) ?? "", seenBy: standing),
        draft: draft(from: row, at: 14))
      return (item, standing, row.int(8))
    }
    // The newest message is one the caller cannot see (it joined later, or left): the
    // newest it can.
    for index in items.indices where items[index].2 > 0 && !items[index].1.canSee(items[index].2) {
      let visible = items[index].1.visibilityCondition
      items[index].0.lastMessage =
        try database.query(
          """
          SELECT \(messageColumns(table: "messages")) FROM messages
          WHERE conversation_id = ? AND kind = 'message' AND \(visible.sql)
          ORDER BY sequence DESC LIMIT 1
          """, values: [items[index].0.id] + visible.values
        ) { hidingQuotes([message(from: $0, at: 0)], from: items[index].1).first }.first ?? nil
    }
    // A former member sees the title, members and activity as they were when it left.
    var reorder = false
    for index in items.indices {
      guard let last = items[index].1.lastVisible else { continue }
      reorder = true
      let id = items[index].0.id
      let titleThen = try database.query(
        """
        SELECT title FROM messages WHERE conversation_id = ? AND kind = 'title'
          AND sequence <= ? ORDER BY sequence DESC LIMIT 1
        """, id, last, map: { $0.optionalString(0) }
      ).first.flatMap { $0 }
      let replacedLater = try database.query(
        """
        SELECT previous_title FROM messages WHERE conversation_id = ? AND kind = 'title'
          AND sequence > ? ORDER BY sequence LIMIT 1
        """, id, last, map: { $0.optionalString(0) }
      ).first.flatMap { $0 }
      items[index].0.title = titleThen ?? replacedLater ?? items[index].0.title
      items[index].0.memberIds = try database.query(
        """
        SELECT DISTINCT user_id FROM member_ranges WHERE conversation_id = ?
          AND first_sequence <= ? AND (last_sequence IS NULL OR last_sequence > ?)
        ORDER BY user_id
        """, id, last, last
      ) { $0.string(0) }
    }
    if reorder {
      // Newest activity first as API.md defines it, from what each caller can see (RFC 3339
      // in UTC with milliseconds sorts as text).
      items.sort { lhs, rhs in
        let left = lhs.0.lastMessage?.sentAt ?? lhs.0.createdAt
        let right = rhs.0.lastMessage?.sentAt ?? rhs.0.createdAt
        return left != right ? left > right : lhs.0.id < rhs.0.id
      }
    }
    return (items.map(\.0), next ?? "0")
  }
}
