import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// The marks around a match in a search snippet (control characters that do not occur in
/// typed text).
enum SearchMarker {
  static let open = "\u{2}"
  static let close = "\u{3}"
}

/// How search results are ordered.
enum SearchOrder: Sendable {
  /// Most recently stored first: what chat apps show, and what the index answers fastest.
  case newest
  /// Best match first (FTS5's bm25).
  case relevance
}

extension MessageStore {
  /// A conversation as the screen shows it: the newest `limit` held messages at or above the
  /// history floor (so no hole shows in the middle), then my unsent ones in client-ID order;
  /// and the receipt numbers.
  func snapshot(_ conversation: ConversationID, limit: Int) throws(StoreError)
    -> ConversationSnapshot
  {
    try read { db in
      let head = try db.query(Self.snapshotHeadSQL, conversation.rawValue) {
        SnapshotHead(row: $0)
      }.first
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
      try db.forEachRow(Self.windowSQL, conversation.rawValue, floor, limit + 1) { row in
        held += 1
        if held <= limit, let record = Self.messageRecord(row, in: conversation) {
          newestFirst.append(record)
        }
      }
      let hasOlder = held > limit
      var messages: [MessageRecord] = []
      messages.reserveCapacity(newestFirst.count + 4)
      while let record = newestFirst.popLast() { messages.append(record) }
      if head?.hasUnsent ?? true {
        messages += try db.query(
          """
          SELECT \(Self.messageColumns) FROM messages
          WHERE conversation_id = ? AND sequence IS NULL AND kind = 'message' ORDER BY client_id
          """, conversation.rawValue
        ) { Self.messageRecord($0, in: conversation) }.compactMap { $0 }
      }
      let receipts = try head.map(\.receipts) ?? Self.receipts(conversation, db: db)
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
        mediaFolder: media)
    }
  }

  /// What a snapshot reads besides its rows, in one statement (each statement run showed in
  /// B2's profile): the conversation, my receipt numbers, whether I have unsent rows in it, and
  /// for groups the members' receipt numbers and the members items that added someone.
  /// `group_concat` promises no order, so each element carries what it is sorted by.
  static let snapshotHeadSQL = """
    SELECT \(qualifiedConversationColumns),
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

  /// A row of `snapshotHeadSQL`.
  private struct SnapshotHead {
    var conversation: ConversationRecord?
    var receipts: ReceiptsRecord?
    var hasUnsent: Bool
    /// By user ID.
    var memberReceipts: [MemberReceiptRecord]
    /// Each member added by a members item: the sequence of the latest one.
    var joinedAt: [UserID: Int]

    init(row: Row) {
      conversation = MessageStore.conversationRecord(row)
      let at = MessageStore.conversationColumnCount
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

  /// The conversation list: newest activity first, each with its last message (an unsent one
  /// of mine counts) and unread count.
  ///
  /// Unread is `newest sequence − my read number`. It needs no message rows, so it is right on a
  /// device that has fetched nothing yet, and my own messages never count, because posting
  /// raises my read number (API.md, Messages).
  func listRows() throws(StoreError) -> [ConversationListRow] {
    try read { db in
      let conversations = try db.query(
        "SELECT \(Self.conversationColumns) FROM conversations"
      ) { Self.conversationRecord($0) }.compactMap { $0 }
      return try conversations.map { try listRow(for: $0, db: db) }.sorted { lhs, rhs in
        let left = lhs.lastMessage?.sentAt ?? lhs.conversation.createdAt
        let right = rhs.lastMessage?.sentAt ?? rhs.conversation.createdAt
        return left != right ? left > right : lhs.conversation.id < rhs.conversation.id
      }
    }
  }

  /// One conversation's list row; nil when the conversation is unknown.
  func listRow(_ id: ConversationID) throws(StoreError) -> ConversationListRow? {
    try read { db in
      guard
        let conversation = try db.query(
          "SELECT \(Self.conversationColumns) FROM conversations WHERE id = ?", id.rawValue,
          map: { Self.conversationRecord($0) }
        ).first ?? nil
      else { return nil }
      return try listRow(for: conversation, db: db)
    }
  }

  private func listRow(for conversation: ConversationRecord, db: Database) throws
    -> ConversationListRow
  {
    // Two index lookups, not a sort of the whole conversation: my newest unsent message, and
    // the message with the highest sequence (the last one shown when nothing is unsent).
    let unsent =
      try db.query(
        """
        SELECT \(Self.messageColumns) FROM messages
        WHERE conversation_id = ? AND sequence IS NULL AND kind = 'message' ORDER BY client_id DESC LIMIT 1
        """, conversation.id.rawValue
      ) { Self.messageRecord($0) }.first ?? nil
    let newestSent =
      try db.query(
        """
        SELECT \(Self.messageColumns) FROM messages
        WHERE conversation_id = ? AND sequence IS NOT NULL AND kind = 'message'
        ORDER BY sequence DESC LIMIT 1
        """, conversation.id.rawValue
      ) { Self.messageRecord($0) }.first ?? nil
    let last = unsent ?? newestSent
    let newestHeld =
      try db.scalarInt(
        "SELECT max(sequence) FROM messages WHERE conversation_id = ?", conversation.id.rawValue)
      ?? 0
    // Unread counts messages (API.md Part 2): every sequence above my read number, less the
    // held items that are not messages (an edit, a delete). One not yet held counts, as the
    // newest-first list cannot know its kind.
    let changesAbove =
      try db.scalarInt(
        """
        SELECT count(*) FROM messages WHERE conversation_id = ? AND sequence > ?
          AND kind != 'message'
        """, conversation.id.rawValue, conversation.readUpTo) ?? 0
    let receipts = try Self.receipts(conversation.id, db: db)
    let newest = max(conversation.lastSequence, newestHeld)
    return ConversationListRow(
      conversation: conversation, lastMessage: last, receipts: receipts,
      unreadCount: max(0, newest - conversation.readUpTo - changesAbove))
  }

  /// Searches every message on the device.
  ///
  /// The query is what a person types, not FTS5 syntax (`FullTextQuery`): words go to the
  /// `unicode61` index, substrings of unspaced scripts (CJK, Thai…, emoji) to the `trigram`
  /// one, all required. No input can make a malformed FTS5 query; input with no letter, digit
  /// or emoji is a clear error.
  func search(_ query: String, limit: Int, order: SearchOrder = .newest) throws(StoreError)
    -> [SearchResultRecord]
  {
    let terms = try Self.terms(of: query)
    let plan = Self.searchPlan(terms, order: order, limit: limit)
    return try read { db in
      try db.query(plan.sql, values: plan.values) { row -> SearchResultRecord? in
        guard let message = Self.messageRecord(row) else { return nil }
        let title = row.string(Self.messageColumnCount)
        let snippet = row.string(Self.messageColumnCount + 1)
        return SearchResultRecord(
          message: message, conversationTitle: title,
          markedSnippet: terms.substrings.isEmpty
            ? snippet
            : terms.markedSnippet(
              in: snippet, open: SearchMarker.open, close: SearchMarker.close))
      }.compactMap { $0 }
    }
  }

  /// The window of a conversation screen: the newest `?` (limit) held messages at or above `?`
  /// (the history floor) of conversation `?`, newest first.
  static let windowSQL = """
    SELECT \(messageColumns) FROM messages
    WHERE conversation_id = ? AND sequence >= ? AND kind IN ('message', 'members', 'title')
    ORDER BY sequence DESC LIMIT ?
    """

  /// A search's SQL and parameters: columns `messageColumns`, the conversation's title, and a
  /// marked snippet (words only) or the message's text (to mark in Swift).
  struct SearchPlan {
    var sql: String
    var values: [any SQLBindable]
  }

  /// Words only: the `unicode61` index alone (`searchSQL`). With substrings: the `trigram`
  /// index of unspaced messages, newest first, its short substrings found with `instr` in
  /// those messages only, and the words (if any) as a condition on the `unicode61` index.
  static func searchPlan(_ terms: FullTextQuery, order: SearchOrder, limit: Int) -> SearchPlan {
    let limit = max(1, min(limit, 500))
    guard !terms.substrings.isEmpty else {
      return SearchPlan(sql: searchSQL(order: order), values: [terms.wordExpression ?? "", limit])
    }
    let (conditions, texts) = terms.unspacedConditions
    var values: [any SQLBindable] = texts
    values.append(limit)
    return SearchPlan(
      sql: """
        SELECT \(messageColumnsOfM), coalesce(c.title, ''), u.text
        FROM message_search_unspaced u
        JOIN messages m ON m.id = u.rowid
        LEFT JOIN conversations c ON c.id = m.conversation_id
        WHERE \(conditions.joined(separator: " AND ")) AND m.kind = 'message' AND m.deleted = 0
        ORDER BY u.rowid DESC LIMIT ?
        """, values: values)
  }

  /// A search by words: the match expression `?`, at most `?` results, with the conversation's
  /// title and a marked snippet.
  ///
  /// Both orders are ones FTS5 delivers itself (rowid, or `rank`, which is bm25), so SQLite
  /// needs no sorter and stops after `limit` rows: the joins and the snippet are made for the
  /// hits shown only. (`ORDER BY bm25(message_search)` made them for every match, then sorted.)
  static func searchSQL(order: SearchOrder) -> String {
    let orderBy = order == .newest ? "message_search.rowid DESC" : "message_search.rank"
    return """
      SELECT \(messageColumnsOfM),
             coalesce(c.title, ''),
             snippet(message_search, 0, char(2), char(3), '…', 12)
      FROM message_search
      JOIN messages m ON m.id = message_search.rowid
      LEFT JOIN conversations c ON c.id = m.conversation_id
      WHERE message_search MATCH ? AND m.kind = 'message' AND m.deleted = 0
      ORDER BY \(orderBy) LIMIT ?
      """
  }

  /// `messageColumns` of the table named `m` in a join.
  static let messageColumnsOfM = messageColumns.split(separator: ",")
    .map { "m." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")

  /// Typed text as search terms; a clear error for what cannot be searched.
  static func terms(of query: String) throws(StoreError) -> FullTextQuery {
    do {
      return try FullTextQuery(query)
    } catch {
      throw .invalidQuery(error.description)
    }
  }
}
