import ChatAPI
import SQLite
import Support

/// A message to store, as the service parsed and checked it.
struct NewMessage: Sendable {
  /// The server id to give it, should it be new.
  var id: String
  var conversationId: String
  var senderId: String
  /// As the client spelled it: echoed back unchanged.
  var clientMessageId: String
  /// Its lowercase form: the idempotency key, with the conversation and the sender.
  var clientMessageKey: String
  var text: String
  var sentAt: Timestamp
}

/// What storing a message did.
struct SendOutcome: Sendable {
  var message: Item
  /// False when the same sender had already sent this clientMessageId with the same text.
  var isNew: Bool
  /// The conversation's members, sorted: who hears of it.
  var memberIds: [String]
}

extension ServerStore {
  /// Stores a message: in one savepoint of a group commit, checks membership (404), text
  /// (empty: 422), the idempotency key (same bytes: the stored message; other bytes: 409),
  /// then takes the next sequence number and raises the sender's own receipt numbers to it.
  func send(_ new: NewMessage) async throws(ServiceError) -> SendOutcome {
    try await enqueueWrite { db in
      let members = try Self.memberIds(db, of: new.conversationId, visibleTo: new.senderId)
      guard !new.text.isEmpty else { throw ServiceError.invalid("A message needs some text.") }
      let existing = try db.query(
        """
        SELECT \(Self.messageColumns(table: "messages")) FROM messages
        WHERE conversation_id = ? AND sender_id = ? AND client_message_key = ?
        """, new.conversationId, new.senderId, new.clientMessageKey
      ) { Self.message(from: $0, at: 0) }.first
      if let existing {
        // Byte for byte: `String ==` would call two normalisations of one text equal.
        guard existing.text.utf8.elementsEqual(new.text.utf8) else {
          throw ServiceError(.conflict, "This clientMessageId was already sent with another text.")
        }
        return SendOutcome(message: existing, isNew: false, memberIds: members)
      }
      let lastSequence =
        try db.scalarInt("SELECT last_sequence FROM conversations WHERE id = ?", new.conversationId)
        ?? 0
      let message = Item(
        id: new.id, clientMessageId: new.clientMessageId, conversationId: new.conversationId,
        senderId: new.senderId, text: new.text, sequence: lastSequence + 1,
        sentAt: new.sentAt.rfc3339)
      try db.run(
        """
        INSERT INTO messages (conversation_id, sequence, id, sender_id, client_message_id,
                              client_message_key, text, sent_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """, message.conversationId, message.sequence, message.id, message.senderId,
        message.clientMessageId, new.clientMessageKey, message.text,
        new.sentAt.millisecondsSince1970)
      try db.run(
        """
        UPDATE conversations
        SET last_sequence = ?, last_activity_at = ?, change_version = \(Self.nextChangeVersion)
        WHERE id = ?
        """, message.sequence, new.sentAt.millisecondsSince1970, message.conversationId)
      // Every stored number is at most the old last sequence, so both rise to the new one.
      try db.run(
        """
        UPDATE members SET delivered_up_to = ?, read_up_to = ?
        WHERE conversation_id = ? AND user_id = ?
        """, message.sequence, message.sequence, message.conversationId, message.senderId)
      return SendOutcome(message: message, isNew: true, memberIds: members)
    }
  }

  /// A page of messages, ascending by sequence: the `limit` just above `after`, the `limit`
  /// just below `before`, or the newest `limit`. Checks membership (404) before the query's
  /// ranges (422), as API.md orders them.
  func messages(
    in conversation: String, visibleTo user: String, query: MessageQuery
  ) throws(ServiceError) -> ItemPage {
    try reading {
      _ = try Self.memberIds(database, of: conversation, visibleTo: user)
      try query.validate()
      let columns = Self.messageColumns(table: "messages")
      if let after = query.after {
        let rows = try database.query(
          """
          SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence > ?
          ORDER BY sequence LIMIT ?
          """, conversation, after, query.limit + 1
        ) { Self.message(from: $0, at: 0) }
        return ItemPage(
          items: Array(rows.prefix(query.limit)), hasMore: rows.count > query.limit)
      }
      let rows = try database.query(
        """
        SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence < ?
        ORDER BY sequence DESC LIMIT ?
        """, conversation, query.before ?? Int.max, query.limit + 1
      ) { Self.message(from: $0, at: 0) }
      return ItemPage(
        items: Array(rows.prefix(query.limit).reversed()), hasMore: rows.count > query.limit)
    }
  }

  /// The columns `message(from:at:)` reads, in its order, for the tables this store queries
  /// (built once: the SQL text is also the statement cache's key, hashed on every call).
  static func messageColumns(table: String) -> String {
    switch table {
    case "messages": messagesColumns
    case "m": mColumns
    default: columnList(table: table)
    }
  }

  private static let messagesColumns = columnList(table: "messages")
  private static let mColumns = columnList(table: "m")

  private static func columnList(table: String) -> String {
    ["id", "client_message_id", "conversation_id", "sender_id", "text", "sequence", "sent_at"]
      .map { "\(table).\($0)" }.joined(separator: ", ")
  }

  static func message(from row: Row, at first: Int) -> Item {
    Item(
      id: row.string(first), clientMessageId: row.string(first + 1),
      conversationId: row.string(first + 2), senderId: row.string(first + 3),
      text: row.string(first + 4), sequence: row.int(first + 5),
      sentAt: Timestamp(millisecondsSince1970: Int64(row.int(first + 6))).rfc3339)
  }
}
