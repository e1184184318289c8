import ChatAPI
import SQLite

/// A page of `GET /v1/search`: hits newest first, and where the next page starts.
struct SearchPage: Sendable {
  var hits: [SearchResult]
  var nextCursor: String?
}

extension ServerStore {
  /// The messages `user` can see (a former member: what it saw) that hold every term of
  /// `terms`, newest first, deleted ones never: `limit` of them, older than `cursor` (from a
  /// previous page; a 400 when this store did not make it).
  ///
  /// SQLite: newest = the highest `row_id` (the order items were stored), through the
  /// `unicode61` index, or the `trigram` one when the query has substrings. PostgreSQL: newest
  /// = the latest `sent_at`, then conversation and sequence (one millisecond holds several
  /// items), through its GIN indexes. Each cursor is its store's key, opaque to clients.
  func search(
    _ terms: FullTextQuery, visibleTo user: String, before cursor: String?, limit: Int
  ) async throws(StoreError) -> SearchPage {
    try await reading { db in
      let plan = try Self.searchPlan(
        terms, visibleTo: user, before: cursor, limit: limit + 1, dialect: db.dialect)
      let rows = try db.query(plan.sql, values: plan.values) { row in
        (item: Self.message(from: row, at: 0), key: row.string(Self.itemColumnCount))
      }
      let items = try Self.hidingQuotes(rows.prefix(limit).map(\.item), from: user, in: db)
      let hits = items.map { item in
        SearchResult(
          conversationId: item.conversationId, item: item,
          snippet: terms.markedSnippet(in: item.text, open: "[", close: "]"))
      }
      return SearchPage(hits: hits, nextCursor: rows.count > limit ? rows[limit - 1].key : nil)
    }
  }

  private static func searchPlan(
    _ terms: FullTextQuery, visibleTo user: String, before cursor: String?, limit: Int,
    dialect: SQLDialect
  ) throws(StoreError) -> (sql: String, values: [any SQLBindable]) {
    var from: String
    var key: String
    var conditions: [String] = []
    var values: [any SQLBindable] = []
    switch dialect {
    case .sqlite:
      if terms.substrings.isEmpty {
        from = "message_search f JOIN messages m ON m.row_id = f.rowid"
        key = "f.rowid"
        conditions.append("message_search MATCH ?")
        values.append(terms.wordExpression ?? "")
      } else {
        from = "message_search_unspaced u JOIN messages m ON m.row_id = u.rowid"
        key = "u.rowid"
        let unspaced = terms.unspacedConditions
        conditions = unspaced.conditions
        values = unspaced.values
      }
      if let cursor {
        guard let rowID = Int(cursor), rowID > 0 else { throw Self.foreignCursor }
        conditions.append("\(key) < ?")
        values.append(rowID)
      }
    case .postgres:
      from = "messages m"
      key = "m.sent_at::text || '.' || m.sequence::text || '.' || m.conversation_id"
      if !terms.words.isEmpty {
        let query = terms.words.enumerated().map { index, word in
          terms.prefixes.contains(index) ? "'\(word)':*" : "'\(word)'"
        }.joined(separator: " & ")
        conditions.append(
          "to_tsvector('simple', chat_fold(m.text)) @@ to_tsquery('simple', chat_fold(?))")
        values.append(query)
      }
      for substring in terms.substrings {
        conditions.append("m.text ILIKE ? ESCAPE '\\'")
        values.append("%" + Self.escapedForLike(substring) + "%")
      }
      if let cursor {
        let parts = cursor.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, let sentAt = Int(parts[0]), let sequence = Int(parts[1]) else {
          throw Self.foreignCursor
        }
        conditions.append("(m.sent_at, m.conversation_id, m.sequence) < (?, ?, ?)")
        values += [sentAt, String(parts[2]), sequence]
      }
    }
    // Visible: inside one of the caller's ranges of the item's conversation (API.md Part 2).
    conditions.append(
      """
      EXISTS (SELECT 1 FROM member_ranges r WHERE r.conversation_id = m.conversation_id
        AND r.user_id = ? AND m.sequence >= r.first_sequence
        AND (r.last_sequence IS NULL OR m.sequence <= r.last_sequence))
      """)
    values.append(user)
    let order =
      dialect == .sqlite
      ? "\(key) DESC" : "m.sent_at DESC, m.conversation_id DESC, m.sequence DESC"
    values.append(limit)
    return (
      """
      SELECT \(messageColumns(table: "m")), \(key) FROM \(from)
      WHERE m.kind = 'message' AND m.deleted = 0 AND \(conditions.joined(separator: " AND "))
      ORDER BY \(order) LIMIT ?
      """, values
    )
  }

  private static let foreignCursor = StoreError.malformed(
    "before must be a nextCursor this server gave.")

  /// `text` matched literally by `LIKE … ESCAPE '\'`.
  private static func escapedForLike(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }
}
