import ChatAPI
import SQLite

/// The message a new reply answers, as the reply's copy shows it, and who may not see it.
struct RepliedMessage: Sendable {
  var quote: Quote
  /// Current members whose visible ranges do not hold it: their copy of the reply has no quote.
  var hiddenFrom: [String]
}

extension ServerStore {
  /// The message `new` answers (API.md Part 3, "Replies"): a message of this conversation
  /// that the sender can see (a deleted one too: its quote says so), else 422.
  static func replied(_ new: NewMessage, members: [String], in db: any StoreDatabase) throws
    -> RepliedMessage
  {
    guard let key = new.replyTo?.key,
      let standing = try standing(db, of: new.conversationId, user: new.senderId)
    else { throw StoreError.notAMember }
    let candidates = try db.query(
      """
      SELECT sequence, sender_id, text, media_kind, deleted
      FROM messages
      WHERE conversation_id = ? AND client_message_key = ? AND kind = 'message'
      ORDER BY sequence
      """, new.conversationId, key
    ) { row in
      Quote(
        senderId: row.string(1), sequence: row.int(0), currentText: row.string(2),
        mediaKind: row.optionalString(3).flatMap(MediaKind.init(rawValue:)),
        deleted: row.int(4) != 0)
    }
    guard let quote = candidates.first(where: { standing.canSee($0.sequence) }) else {
      throw StoreError.invalid("replyTo must be a message of this conversation you can see.")
    }
    // Members added after it (or away when it was written) get the reply without its quote.
    let hidden = try db.query(
      """
      SELECT me.user_id FROM members AS me
      WHERE me.conversation_id = ? AND me.membership = 'member'
        AND NOT EXISTS (SELECT 1 FROM member_ranges AS r
          WHERE r.conversation_id = me.conversation_id AND r.user_id = me.user_id
            AND r.first_sequence <= ? AND (r.last_sequence IS NULL OR r.last_sequence >= ?))
      ORDER BY me.user_id
      """, new.conversationId, quote.sequence, quote.sequence
    ) { $0.string(0) }
    return RepliedMessage(quote: quote, hiddenFrom: hidden)
  }

  /// The column `message(from:at:)` reads a reply's quote from: the target's current sender,
  /// deleted flag, media kind and text, `|`-separated (user ids hold no `|`, and the text
  /// comes last), by its sequence; NULL for a message that answers nothing. The quote's first
  /// 100 Unicode scalars are cut in Swift (`Quote(currentText:)`): SQLite's `substr` stops at
  /// a NUL, which a text may hold (simulation seed 3 of issue 35). Who may see it is decided
  /// after (`hidingQuotes`).
  static func quoteColumn(table: String) -> String {
    """
    CASE WHEN \(table).reply_to_sequence IS NULL THEN NULL ELSE (
      SELECT q.sender_id || '|' || CAST(q.deleted AS TEXT) || '|' || coalesce(q.media_kind, '')
        || '|' || q.text
      FROM messages AS q
      WHERE q.conversation_id = \(table).conversation_id AND q.sequence = \(table).reply_to_sequence
    ) END
    """
  }

  /// A quote from `quoteColumn`'s text; nil when the target is gone (a retention sweep).
  static func quote(of sequence: Int?, from column: String?) -> Quote? {
    guard let sequence, let column else { return nil }
    let parts = column.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    return Quote(
      senderId: String(parts[0]), sequence: sequence, currentText: String(parts[3]),
      mediaKind: MediaKind(rawValue: String(parts[2])), deleted: parts[1] == "1")
  }

  /// `items` as `standing`'s user reads them: a quote of what it cannot see is null, so a
  /// quote never leaks what visibility hides.
  static func hidingQuotes(_ items: [Item], from standing: Standing) -> [Item] {
    items.map { item in
      guard let quote = item.replyTo?.quote, !standing.canSee(quote.sequence) else { return item }
      var item = item
      item.replyTo?.quote = nil
      return item
    }
  }

  /// `hidingQuotes` for items of any conversations `user` is or was in (search hits).
  static func hidingQuotes(_ items: [Item], from user: String, in db: any StoreDatabase) throws
    -> [Item]
  {
    var standings: [String: Standing] = [:]
    var shown: [Item] = []
    for item in items {
      guard item.replyTo?.quote != nil else {
        shown.append(item)
        continue
      }
      let known =
        try standings[item.conversationId]
        ?? standing(db, of: item.conversationId, user: user)
        ?? Standing(membership: .removed, ranges: [])
      standings[item.conversationId] = known
      shown += hidingQuotes([item], from: known)
    }
    return shown
  }

  /// The page `around` a sequence (API.md Part 3): `AroundPage` picks from the visible items at
  /// or below it and above it, `limit + 1` of each (one more tells whether any lie beyond).
  static func page(
    around sequence: Int, in conversation: String, standing: Standing,
    _ db: any StoreDatabase, _ limit: Int
  ) throws -> ItemPage {
    let columns = messageColumns(table: "messages")
    let visible = standing.visibilityCondition
    let older = try db.query(
      """
      SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence <= ?
        AND \(visible.sql)
      ORDER BY sequence DESC LIMIT ?
      """, values: [conversation, sequence] + visible.values + [limit + 1]
    ) { message(from: $0, at: 0) }
    let newer = try db.query(
      """
      SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence > ?
        AND \(visible.sql)
      ORDER BY sequence LIMIT ?
      """, values: [conversation, sequence] + visible.values + [limit + 1]
    ) { message(from: $0, at: 0) }
    let picked = AroundPage.pick(
      older: older.map(\.sequence), newer: newer.map(\.sequence), limit: limit)
    let chosen = Set(picked.sequences)
    let items = (older.reversed() + newer).filter { chosen.contains($0.sequence) }
    return ItemPage(
      items: hidingQuotes(items, from: standing),
      hasMore: picked.hasMoreBefore || picked.hasMoreAfter,
      hasMoreBefore: picked.hasMoreBefore, hasMoreAfter: picked.hasMoreAfter)
  }
}
