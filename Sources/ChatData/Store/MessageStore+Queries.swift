import ChatDomain
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
      let record =
        try db.query(
          "SELECT \(Self.conversationColumns) FROM conversations WHERE id = ?",
          conversation.rawValue
        ) { Self.conversationRecord($0) }.first ?? nil
      let floor = record?.historyFloor ?? 0
      // One row more than the window: whether any held row lies below it. (Counting them walked
      // every row of the conversation: milliseconds at 100,000 messages, on every change; a
      // second query for one row cost more than the row.)
      var newestFirst = try db.query(
        Self.windowSQL, conversation.rawValue, floor, limit + 1, capacity: limit + 1
      ) { Self.messageRecord($0, in: conversation) }
      let hasOlder = newestFirst.count > limit
      if hasOlder { newestFirst.removeLast() }
      // Oldest first, each record moved (popped), not copied: the records are large, and
      // copying them (`reversed`, `compactMap`) showed in B2's profile.
      var messages: [MessageRecord] = []
      messages.reserveCapacity(newestFirst.count + 4)
      while let row = newestFirst.popLast() {
        if let record = row { messages.append(record) }
      }
      messages += try db.query(
        """
        SELECT \(Self.messageColumns) FROM messages
        WHERE conversation_id = ? AND sequence IS NULL AND kind = 'message' ORDER BY client_id
        """, conversation.rawValue
      ) { Self.messageRecord($0, in: conversation) }.compactMap { $0 }
      let receipts = try Self.receipts(conversation, db: db)
      // "Read by N of M" is for groups only: a one-to-one conversation reads no more.
      var memberReceipts: [MemberReceiptRecord] = []
      var joinedAt: [UserID: Int] = [:]
      if let members = record?.memberIDs, members.count > 2 {
        memberReceipts = try db.query(
          """
          SELECT user_id, delivered_up_to, read_up_to FROM member_receipts
          WHERE conversation_id = ? ORDER BY user_id
          """, conversation.rawValue
        ) { row in
          UserID(rawValue: row.string(0)).map {
            MemberReceiptRecord(userID: $0, deliveredUpTo: row.int(1), readUpTo: row.int(2))
          }
        }.compactMap { $0 }.filter { members.contains($0.userID) }
        // From the members items alone (`messages_members`), not the whole conversation.
        try db.query(
          """
          SELECT added, sequence FROM messages INDEXED BY messages_members
          WHERE conversation_id = ? AND kind = 'members' AND added != '' ORDER BY sequence
          """, conversation.rawValue
        ) { row in
          for user in row.string(0).split(separator: ",") {
            if let id = UserID(rawValue: String(user)) { joinedAt[id] = row.int(1) }
          }
        }
      }
      return ConversationSnapshot(
        conversation: record, messages: messages, receipts: receipts,
        hasOlderHeld: hasOlder, memberReceipts: memberReceipts, joinedAt: joinedAt,
        mediaFolder: media)
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
