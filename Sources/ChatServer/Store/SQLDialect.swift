import SQLite

/// What differs between the two databases.
package enum SQLDialect: Sendable {
  case sqlite
  case postgres

  /// The aggregate joining `expression`'s texts with `separator` (a SQL string literal).
  /// Whether the text `haystack` holds the text `needle` (no pattern characters, unlike LIKE).
  package func contains(_ haystack: String, _ needle: String) -> String {
    switch self {
    case .sqlite: "instr(\(haystack), \(needle)) > 0"
    case .postgres: "strpos(\(haystack), \(needle)) > 0"
    }
  }

  package func joined(_ expression: String, separator: String) -> String {
    switch self {
    case .sqlite: "group_concat(\(expression), \(separator))"
    case .postgres: "string_agg(\(expression), \(separator))"
    }
  }

  // MARK: - Sync cursors
  //
  // `/v1/sync` answers the conversations changed since a cursor. On SQLite (one writer, whose
  // commits are in order) a change takes a version, one more than the highest, and the cursor
  // is the highest version seen. On PostgreSQL writers commit side by side, so a version
  // taken earlier may commit later than one a reader already saw; there a change records its
  // transaction (`change_xid`), the cursor is the reader's snapshot (`pg_current_snapshot()`),
  // and "changed since" is "written by a transaction that snapshot did not see": nothing is
  // skipped, and no writer waits for another.

  /// The `SET` clause that marks a conversation row changed.
  /// A row lock taken by a read, so a concurrent change of the row waits for the reader's
  /// commit (PostgreSQL's `FOR SHARE`); nothing on SQLite, whose one writer serialises all.
  package var forShare: String {
    switch self {
    case .sqlite: ""
    case .postgres: " FOR SHARE"
    }
  }

  package var markChanged: String {
    switch self {
    case .sqlite: "change_version = \(Self.nextChangeVersion)"
    case .postgres: "change_xid = pg_current_xact_id()"
    }
  }

  /// The column a change marker lives in, and a new row's value (`block_lists`, Part 3).
  package var changeColumn: String {
    switch self {
    case .sqlite: "change_version"
    case .postgres: "change_xid"
    }
  }

  package var changeValue: String {
    switch self {
    case .sqlite: Self.nextChangeVersion
    case .postgres: "pg_current_xact_id()"
    }
  }

  /// A new conversation row's `change_version` (PostgreSQL's `change_xid` has its default).
  package var firstChangeVersion: String {
    switch self {
    case .sqlite: Self.nextChangeVersion
    case .postgres: "0"
    }
  }

  /// SQLite's next change version: one more than the highest, of conversations and block
  /// lists alike (one counter, so one cursor covers both).
  private static let nextChangeVersion = "(\(highestChangeVersion) + 1)"

  private static let highestChangeVersion = """
    max(coalesce((SELECT max(change_version) FROM conversations), 0),
        coalesce((SELECT max(change_version) FROM block_lists), 0))
    """

  /// The query whose one text column is the cursor that follows a read.
  package var cursorQuery: String {
    switch self {
    case .sqlite: "SELECT CAST(\(Self.highestChangeVersion) AS TEXT)"
    case .postgres: "SELECT CAST(pg_current_snapshot() AS TEXT)"
    }
  }

  /// Whether `cursor` is one this database's server issues.
  package func isCursor(_ cursor: String) -> Bool {
    switch self {
    case .sqlite:
      guard let value = Int(cursor) else { return false }
      return value >= 0 && String(value) == cursor
    case .postgres:
      // xmin:xmax:xip,xip,… in decimal.
      let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 3, let low = UInt64(parts[0]), let high = UInt64(parts[1]),
        low <= high
      else { return false }
      let running = parts[2].split(separator: ",", omittingEmptySubsequences: false)
      return parts[2].isEmpty
        || running.allSatisfy { UInt64($0).map { (low..<high).contains($0) } ?? false }
    }
  }

  /// The condition "conversation row `alias` changed since `cursor`" (always, without one).
  package func changed(since cursor: String?, alias: String) -> (
    sql: String, values: [any SQLBindable]
  ) {
    guard let cursor else { return ("1 = 1", []) }
    switch self {
    case .sqlite: return ("\(alias).change_version > ?", [Int(cursor) ?? 0])
    case .postgres:
      return ("NOT pg_visible_in_snapshot(\(alias).change_xid, CAST(? AS pg_snapshot))", [cursor])
    }
  }

  /// Ends a `SELECT` of rows about to be changed by whoever takes them: on PostgreSQL each
  /// row of `alias` is locked, and rows another node holds are skipped; SQLite has one writer.
  package func lockingSkippingLocked(_ alias: String) -> String {
    switch self {
    case .sqlite: ""
    case .postgres: "FOR UPDATE OF \(alias) SKIP LOCKED"
    }
  }
}
