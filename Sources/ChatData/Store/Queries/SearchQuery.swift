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
package enum SearchOrder: Sendable {
  /// Most recently stored first: what chat apps show, and what the index answers fastest.
  case newest
  /// Best match first (FTS5's bm25).
  case relevance
}

/// A search of every message on the device (`SearchResultRecord`), over the two FTS5 indexes
/// the triggers of `messages` fill (`docs/retention.md`, "Every script searchable").
///
/// The query is what a person types, not FTS5 syntax (`FullTextQuery`): words go to the
/// `unicode61` index, substrings of unspaced scripts (CJK, Thai…, emoji) to the `trigram`
/// one, all required. No input can make a malformed FTS5 query; input with no letter, digit
/// or emoji is a clear error (`terms(of:)`, before any database work).
package enum SearchQuery {
  /// The hits for `terms`, at most `limit` (1…500), deleted messages never.
  static func search(
    _ terms: FullTextQuery, limit: Int, order: SearchOrder, db: Database
  ) throws -> [SearchResultRecord] {
    let plan = plan(terms, order: order, limit: limit)
    return try db.query(plan.sql, values: plan.values) { row -> SearchResultRecord? in
      guard let message = MessagesTable.record(row) else { return nil }
      let title = row.string(MessagesTable.columnCount)
      let snippet = row.string(MessagesTable.columnCount + 1)
      return SearchResultRecord(
        message: message, conversationTitle: title,
        markedSnippet: terms.substrings.isEmpty
          ? snippet
          : terms.markedSnippet(
            in: snippet, open: SearchMarker.open, close: SearchMarker.close))
    }.compactMap { $0 }
  }

  /// A search's SQL and parameters: columns `MessagesTable.columns`, the conversation's title,
  /// and a marked snippet (words only) or the message's text (to mark in Swift).
  package struct Plan {
    package var sql: String
    package var values: [any SQLBindable]
  }

  /// Words only: the `unicode61` index alone (`wordsSQL`). With substrings: the `trigram`
  /// index of unspaced messages, newest first, its short substrings found with `instr` in
  /// those messages only, and the words (if any) as a condition on the `unicode61` index.
  package static func plan(_ terms: FullTextQuery, order: SearchOrder, limit: Int) -> Plan {
    let limit = max(1, min(limit, 500))
    guard !terms.substrings.isEmpty else {
      return Plan(sql: wordsSQL(order: order), values: [terms.wordExpression ?? "", limit])
    }
    let (conditions, texts) = terms.unspacedConditions
    var values: [any SQLBindable] = texts
    values.append(limit)
    return Plan(
      sql: """
        SELECT \(MessagesTable.columnsOfM), coalesce(c.title, ''), u.text
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
  static func wordsSQL(order: SearchOrder) -> String {
    let orderBy = order == .newest ? "message_search.rowid DESC" : "message_search.rank"
    return """
      SELECT \(MessagesTable.columnsOfM),
             coalesce(c.title, ''),
             snippet(message_search, 0, char(2), char(3), '…', 12)
      FROM message_search
      JOIN messages m ON m.id = message_search.rowid
      LEFT JOIN conversations c ON c.id = m.conversation_id
      WHERE message_search MATCH ? AND m.kind = 'message' AND m.deleted = 0
      ORDER BY \(orderBy) LIMIT ?
      """
  }

  /// Typed text as search terms; a clear error for what cannot be searched.
  package static func terms(of query: String) throws(StoreError) -> FullTextQuery {
    do {
      return try FullTextQuery(query)
    } catch {
      throw .invalidQuery(error.description)
    }
  }
}
