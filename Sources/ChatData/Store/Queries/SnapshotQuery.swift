import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// A conversation as the screen shows it (`ConversationSnapshot`), read in two statements: the
/// window (`windowSQL`, each reply with the message it answers as held: `quotedColumns`) and
/// one head (`headSQL`).
package enum SnapshotQuery {
  /// The newest `limit` held messages at or above the history floor (so no hole shows in the
  /// middle), then my unsent ones in client-ID order; and the receipt numbers. `media`: where
  /// the rows' files are.
  static func snapshot(
    _ conversation: ConversationID, limit: Int, media: MediaFolder?, requotes: Bool = true,
    db: Database
  ) throws -> ConversationSnapshot {
    let head = try db.query(headSQL, conversation.rawValue) { Head(row: $0) }.first
    let record = head?.conversation
    let floor = record?.historyFloor ?? 0
    // One row more than the window: whether any held row lies below it. (Counting them walked
    // every row of the conversation: milliseconds at 100,000 messages, on every change; a
    // second query for one row cost more than the row.) Each record is built in place, then
    // moved (popped) into oldest-first order: the records are large, and copying them
    // (`reversed`, `reverse`, `compactMap`) showed in B2's profile.
    var newestFirst: [MessageRecord] = []
    newestFirst.reserveCapacity(limit)
    var held = 0
    let quoted = requotes ? MessagesTable.columnCount : nil
    try db.forEachRow(windowSQL, conversation.rawValue, floor, limit + 1) { row in
      held += 1
      if held <= limit,
        let record = MessagesTable.record(row, in: conversation, heldQuote: quoted)
      {
        newestFirst.append(record)
      }
    }
    let hasOlder = held > limit
    var messages: [MessageRecord] = []
    messages.reserveCapacity(newestFirst.count + 4)
    while let record = newestFirst.popLast() { messages.append(record) }
    return try finish(
      conversation, head: head, messages: &messages, atNewest: true, hasOlder: hasOlder,
      media: media, requotes: requotes, db: db)
  }

  /// The held rows around `sequence` (opening at a quote, a search hit, the first unread), as
  /// `AroundPage` picks them (the same rule as the server's `?around=`): that row, then older
  /// and newer ones by turns, up to `limit`; the history floor does not bound it (an island
  /// of history fetched around a message lies below it). My unsent rows follow when the window
  /// reaches the newest held row.
  static func snapshot(
    _ conversation: ConversationID, around sequence: Int, limit: Int, media: MediaFolder?,
    requotes: Bool = true, db: Database
  ) throws -> ConversationSnapshot {
    let head = try db.query(headSQL, conversation.rawValue) { Head(row: $0) }.first
    let shown = "m.conversation_id = ? AND m.kind IN ('message', 'members', 'title')"
    let quoted = requotes ? MessagesTable.columnCount : nil
    let older = try db.query(
      """
      SELECT \(quotedColumns) FROM \(messagesAndQuoted)
      WHERE \(shown) AND m.sequence <= ? ORDER BY m.sequence DESC LIMIT ?
      """, conversation.rawValue, sequence, limit + 1
    ) { MessagesTable.record($0, in: conversation, heldQuote: quoted) }.compactMap { $0 }
    let newer = try db.query(
      """
      SELECT \(quotedColumns) FROM \(messagesAndQuoted)
      WHERE \(shown) AND m.sequence > ? ORDER BY m.sequence ASC LIMIT ?
      """, conversation.rawValue, sequence, limit + 1
    ) { MessagesTable.record($0, in: conversation, heldQuote: quoted) }.compactMap { $0 }
    let page = AroundPage.pick(
      older: older.compactMap(\.sequence), newer: newer.compactMap(\.sequence), limit: limit)
    let picked = Set(page.sequences)
    var messages = (older.reversed() + newer).filter { picked.contains($0.sequence ?? 0) }
    return try finish(
      conversation, head: head, messages: &messages, atNewest: !page.hasMoreAfter,
      hasOlder: page.hasMoreBefore, media: media, requotes: requotes, db: db)
  }

  /// What both windows add to their rows: my unsent ones when the window reaches the newest,
  /// the quotes, the receipt numbers.
  private static func finish(
    _ conversation: ConversationID, head: Head?, messages: inout [MessageRecord],
    atNewest: Bool, hasOlder: Bool, media: MediaFolder?, requotes: Bool, db: Database
  ) throws -> ConversationSnapshot {
    let record = head?.conversation
    if atNewest, head?.hasUnsent ?? true {
      let quoted = requotes ? MessagesTable.columnCount : nil
      messages += try db.query(
        """
        SELECT \(quotedColumns) FROM \(messagesAndQuoted)
        WHERE m.conversation_id = ? AND m.sequence IS NULL AND m.kind = 'message'
        ORDER BY m.client_id
        """, conversation.rawValue
      ) { MessagesTable.record($0, in: conversation, heldQuote: quoted) }.compactMap { $0 }
    }
    let receipts = try head.map(\.receipts) ?? ReceiptsTable.receipts(conversation, db: db)
    // "Read by N of M" is for groups only: a one-to-one conversation reads no more.
    var memberReceipts: [MemberReceiptRecord] = []
    var joinedAt: [UserID: Int] = [:]
    if let head, let members = record?.memberIDs, members.count > 2 {
      memberReceipts = head.memberReceipts.filter { members.contains($0.userID) }
      joinedAt = head.joinedAt
    }
    return ConversationSnapshot(
      conversation: record, messages: messages, receipts: receipts,
      hasOlderHeld: hasOlder, memberReceipts: memberReceipts, joinedAt: joinedAt,
      mediaFolder: media, blocked: try BlockedTable.hidden(in: record, db: db))
  }

  /// The held message (its row ID) that the message `id` of `conversation` names, both SQL
  /// expressions: a message of the conversation with that client ID, the sent one first.
  static func heldTarget(of id: String, in conversation: String) -> String {
    """
    SELECT t.id FROM messages t INDEXED BY messages_by_client_id
    WHERE t.client_id = \(id) AND t.conversation_id = \(conversation) AND t.kind = 'message'
    ORDER BY t.sequence IS NULL, t.sequence LIMIT 1
    """
  }

  /// The rows of `messages` (as `m`), each reply with the message it answers when it is held
  /// (as `quoted`): a reply quotes it as this device holds it now (its edits and its delete
  /// applied: the quote is of the **current** state, API.md Part 3), else as the server last
  /// served it (hidden stays hidden). In the window's statement, so the open stays one.
  static let messagesAndQuoted = """
    messages m LEFT JOIN messages quoted
      ON m.reply_to IS NOT NULL AND quoted.id = (\(heldTarget(of: "m.reply_to", in: "m.conversation_id")))
    """

  /// What the queries on `messagesAndQuoted` select: `MessagesTable.columns` of `m`, then the
  /// quoted message's (`MessagesTable.quote(held:at:)`).
  static let quotedColumns =
    MessagesTable.columnsOfM + ", " + MessagesTable.quoteColumns(of: "quoted")

  /// The window of a conversation screen: the newest `?` (limit) held messages at or above `?`
  /// (the history floor) of conversation `?`, newest first.
  package static let windowSQL = """
    SELECT \(quotedColumns) FROM \(messagesAndQuoted)
    WHERE m.conversation_id = ? AND m.sequence >= ? AND m.kind IN ('message', 'members', 'title')
    ORDER BY m.sequence DESC LIMIT ?
    """

  /// What a snapshot reads besides its rows, in one statement (each statement run showed in
  /// B2's profile): the conversation, my receipt numbers, whether I have unsent rows in it, and
  /// for groups the members' receipt numbers and the members items that added someone.
  /// `group_concat` promises no order, so each element carries what it is sorted by.
  static let headSQL = """
    SELECT \(ConversationsTable.qualifiedColumns),
      receipts.delivered_up_to, receipts.read_up_to,
      EXISTS (SELECT 1 FROM messages
              WHERE conversation_id = ?1 AND sequence IS NULL AND kind = 'message'),
      (SELECT group_concat(user_id || ' ' || delivered_up_to || ' ' || read_up_to, ',')
       FROM member_receipts WHERE conversation_id = ?1),
      (SELECT group_concat(sequence || ' ' || added, ';') FROM messages INDEXED BY messages_members
       WHERE conversation_id = ?1 AND kind = 'members' AND added != '')
    FROM conversations LEFT JOIN receipts ON receipts.conversation_id = conversations.id
    WHERE conversations.id = ?1
    """

  /// A row of `headSQL`.
  private struct Head {
    var conversation: ConversationRecord?
    var receipts: ReceiptsRecord?
    var hasUnsent: Bool
    /// By user ID.
    var memberReceipts: [MemberReceiptRecord]
    /// Each member added by a members item: the sequence of the latest one.
    var joinedAt: [UserID: Int]

    init(row: Row) {
      conversation = ConversationsTable.record(row)
      let at = ConversationsTable.columnCount
      receipts =
        row.isNull(at) ? nil : ReceiptsRecord(deliveredUpTo: row.int(at), readUpTo: row.int(at + 1))
      hasUnsent = row.int(at + 2) != 0
      memberReceipts = (row.optionalString(at + 3) ?? "").split(separator: ",").compactMap {
        let parts = $0.split(separator: " ")
        guard parts.count == 3, let user = UserID(rawValue: String(parts[0])),
          let delivered = Int(parts[1]), let read = Int(parts[2])
        else { return nil }
        return MemberReceiptRecord(userID: user, deliveredUpTo: delivered, readUpTo: read)
      }.sorted { $0.userID < $1.userID }
      let added = (row.optionalString(at + 4) ?? "").split(separator: ";").compactMap {
        item -> (sequence: Int, users: Substring)? in
        guard let space = item.firstIndex(of: " "), let sequence = Int(item[..<space]) else {
          return nil
        }
        return (sequence, item[item.index(after: space)...])
      }.sorted { $0.sequence < $1.sequence }
      joinedAt = [:]
      for item in added {
        for user in item.users.split(separator: ",") {
          if let id = UserID(rawValue: String(user)) { joinedAt[id] = item.sequence }
        }
      }
    }
  }
}
