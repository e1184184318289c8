import ChatAPI
import SQLite
import Support

// How an item's row is read: the columns every query of items selects, and the item they make.
extension ServerStore {
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
    [
      "id", "client_message_id", "conversation_id", "sender_id", "text", "sequence", "sent_at",
      "kind", "target_id", "edited_at", "deleted", "added", "removed", "title", "media",
      "reactions", "emoji", "reaction_remove", "mentions", "reply_to_id", "reply_to_sequence",
      "forwarded_from",
    ]
    .map { "\(table).\($0)" }.joined(separator: ", ") + ", " + quoteColumn(table: table)
  }

  /// How many columns `messageColumns` names (what a query selects after them starts here).
  static let itemColumnCount = 23

  /// An item in its current state, from the columns of `messageColumns` at `first`.
  static func message(from row: any StoreRow, at first: Int) -> Item {
    let kind = ItemKind(rawValue: row.string(first + 7)) ?? .message
    let isMessage = kind == .message
    func users(_ column: Int) -> [String]? {
      guard kind == .members else { return nil }
      return row.optionalString(column)?.split(separator: ",").map(String.init) ?? []
    }
    return Item(
      id: row.string(first), clientMessageId: row.string(first + 1),
      conversationId: row.string(first + 2), senderId: row.string(first + 3),
      text: row.string(first + 4), sequence: row.int(first + 5),
      sentAt: Timestamp(millisecondsSince1970: Int64(row.int(first + 6))).rfc3339, kind: kind,
      media: isMessage
        ? row.optionalString(first + 14).flatMap {
          try? APICoding.decode(Media.self, from: Array($0.utf8))
        } : nil,
      editedAt: isMessage && !row.isNull(first + 9)
        ? Timestamp(millisecondsSince1970: Int64(row.int(first + 9))).rfc3339 : nil,
      deleted: isMessage && row.int(first + 10) != 0,
      target: row.isNull(first + 8) ? nil : row.string(first + 8), added: users(first + 11),
      removed: users(first + 12), title: row.optionalString(first + 13),
      reactions: isMessage
        ? row.optionalString(first + 15).flatMap {
          try? APICoding.decode([ReactionGroup].self, from: Array($0.utf8))
        } ?? [] : nil,
      replyTo: isMessage
        ? row.optionalString(first + 19).map {
          ReplyTo(
            clientMessageId: $0,
            quote: quote(of: row.optionalInt(first + 20), from: row.optionalString(first + 22)))
        } : nil,
      mentions: isMessage
        ? row.optionalString(first + 18)?.split(separator: ",").map(String.init) ?? [] : nil,
      forwarded: isMessage ? !row.isNull(first + 21) : nil,
      emoji: kind == .reaction ? row.optionalString(first + 16) ?? "" : nil,
      remove: kind == .reaction || kind == .pin ? row.int(first + 17) != 0 : nil)
  }
}
