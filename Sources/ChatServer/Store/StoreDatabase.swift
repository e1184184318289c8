import Postgres
import SQLite

/// The store's seam: what its rules (membership, sequences, idempotency, visibility, pushes)
/// run their SQL on. Two implementations, one set of rules and one SQL text: SQLite (the
/// default, one file, one writer) and PostgreSQL (several `chat-server` nodes on one
/// database). The SQL is written to mean the same on both: `?` placeholders, `CASE` rather
/// than SQLite's two-argument `max`, `CAST(? AS TEXT)` where PostgreSQL could not infer a
/// parameter's type, and `dialect` for the little that differs.
protocol StoreDatabase: AnyObject {
  var dialect: SQLDialect { get }
  func run(_ sql: String, values: [any SQLBindable]) throws
  func query<T>(
    _ sql: String, values: [any SQLBindable], map: (any StoreRow) throws -> T
  ) throws -> [T]
}

/// A row of a query's result, by column index.
protocol StoreRow {
  func isNull(_ column: Int) -> Bool
  func int(_ column: Int) -> Int
  func optionalInt(_ column: Int) -> Int?
  func string(_ column: Int) -> String
  func optionalString(_ column: Int) -> String?
}

/// What differs between the two databases.
enum SQLDialect: Sendable {
  case sqlite
  case postgres

  /// The aggregate joining `expression`'s texts with `separator` (a SQL string literal).
  func joined(_ expression: String, separator: String) -> String {
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
  var markChanged: String {
    switch self {
    case .sqlite: "change_version = \(Self.nextChangeVersion)"
    case .postgres: "change_xid = pg_current_xact_id()"
    }
  }

  /// A new conversation row's `change_version` (PostgreSQL's `change_xid` has its default).
  var firstChangeVersion: String {
    switch self {
    case .sqlite: Self.nextChangeVersion
    case .postgres: "0"
    }
  }

  /// SQLite's next change version: one more than the highest.
  private static let nextChangeVersion =
    "(SELECT coalesce(max(change_version), 0) + 1 FROM conversations)"

  /// The query whose one text column is the cursor that follows a read.
  var cursorQuery: String {
    switch self {
    case .sqlite: "SELECT CAST(coalesce(max(change_version), 0) AS TEXT) FROM conversations"
    case .postgres: "SELECT CAST(pg_current_snapshot() AS TEXT)"
    }
  }

  /// Whether `cursor` is one this database's server issues.
  func isCursor(_ cursor: String) -> Bool {
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
  func changed(since cursor: String?, alias: String) -> (sql: String, values: [any SQLBindable]) {
    guard let cursor else { return ("1 = 1", []) }
    switch self {
    case .sqlite: return ("\(alias).change_version > ?", [Int(cursor) ?? 0])
    case .postgres:
      return ("NOT pg_visible_in_snapshot(\(alias).change_xid, CAST(? AS pg_snapshot))", [cursor])
    }
  }

  /// Ends a `SELECT` of rows about to be changed by whoever takes them: on PostgreSQL each
  /// row of `alias` is locked, and rows another node holds are skipped; SQLite has one writer.
  func lockingSkippingLocked(_ alias: String) -> String {
    switch self {
    case .sqlite: ""
    case .postgres: "FOR UPDATE OF \(alias) SKIP LOCKED"
    }
  }
}

extension StoreDatabase {
  func run(_ sql: String, _ values: any SQLBindable...) throws {
    try run(sql, values: values)
  }

  func query<T>(
    _ sql: String, _ values: any SQLBindable..., map: (any StoreRow) throws -> T
  ) throws -> [T] {
    try query(sql, values: values, map: map)
  }

  /// The first column of the first row, as an integer; nil when there is no row or it is NULL.
  func scalarInt(_ sql: String, _ values: any SQLBindable...) throws -> Int? {
    try query(sql, values: values) { $0.optionalInt(0) }.first ?? nil
  }

  /// Locks the conversation's rows of `push_queue` for the rest of the transaction, so a
  /// lease or a finished push cannot slip between reading a row and writing it back
  /// (PostgreSQL only: on SQLite the dispatcher's writes and this one never overlap).
  func lockPushQueue(of conversation: String) throws {
    guard dialect == .postgres else { return }
    try run("SELECT 1 FROM push_queue WHERE conversation_id = ? FOR UPDATE", conversation)
  }

  /// Takes the conversation's row lock for the rest of the transaction, before the write
  /// reads what it decides on (membership, the last sequence, the idempotency key). On
  /// PostgreSQL this is what keeps sequences dense and every rule true with writers on several
  /// nodes: the writes of one conversation run one after the other, and each reads what the
  /// one before committed. SQLite has one writer: nothing to do.
  func lockConversation(_ id: String) throws {
    guard dialect == .postgres else { return }
    try run("SELECT id FROM conversations WHERE id = ? FOR UPDATE", id)
  }

}

/// The SQLite side of the seam: the store's one connection.
final class SQLiteStoreDatabase: StoreDatabase {
  let database: Database
  var dialect: SQLDialect { .sqlite }

  init(_ database: Database) {
    self.database = database
  }

  func run(_ sql: String, values: [any SQLBindable]) throws {
    try database.run(sql, values: values)
  }

  func query<T>(
    _ sql: String, values: [any SQLBindable], map: (any StoreRow) throws -> T
  ) throws -> [T] {
    try database.query(sql, values: values) { row in try map(row) }
  }
}

extension Row: StoreRow {}

/// The PostgreSQL side of the seam: one pooled connection, for one transaction.
final class PostgresStoreDatabase: StoreDatabase {
  let connection: PostgresConnection
  var dialect: SQLDialect { .postgres }

  init(_ connection: PostgresConnection) {
    self.connection = connection
  }

  func run(_ sql: String, values: [any SQLBindable]) throws {
    try connection.run(sql, parameters: values.map(Self.parameter))
  }

  func query<T>(
    _ sql: String, values: [any SQLBindable], map: (any StoreRow) throws -> T
  ) throws -> [T] {
    try connection.query(sql, parameters: values.map(Self.parameter)) { row in try map(row) }
  }

  /// A value in PostgreSQL's text format (a boolean as 1 or 0, which PostgreSQL reads as one).
  static func parameter(_ value: any SQLBindable) -> String? {
    switch value.sqlValue {
    case .null: nil
    case .integer(let integer): String(integer)
    case .real(let real): String(real)
    case .text(let text): text
    case .blob(let bytes): postgresBytea(bytes)
    }
  }
}

extension PostgresRow: StoreRow {}
