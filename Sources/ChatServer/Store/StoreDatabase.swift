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

  /// Takes the conversation's row lock for the rest of the transaction, before the write
  /// reads what it decides on (membership, the last sequence, the idempotency key). On
  /// PostgreSQL this is what keeps sequences dense and every rule true with writers on several
  /// nodes: the writes of one conversation run one after the other, and each reads what the
  /// one before committed. SQLite has one writer: nothing to do.
  func lockConversation(_ id: String) throws {
    guard dialect == .postgres else { return }
    try run("SELECT id FROM conversations WHERE id = ? FOR UPDATE", id)
  }

  /// Orders the commits that take a change version (`ServerStore.nextChangeVersion`), held to
  /// the end of the transaction: versions then become visible in increasing order, so a
  /// `/v1/sync` cursor never passes a change that commits later with a lower version. One
  /// lock for the whole database, taken as late as possible (PostgreSQL only; SQLite has one
  /// writer). Always after `lockConversation`, never before: no two writers wait on each other
  /// in a circle.
  func orderChangeVersions() throws {
    guard dialect == .postgres else { return }
    try run("SELECT pg_advisory_xact_lock(?)", Self.changeVersionLock)
  }
}

extension StoreDatabase {
  /// The advisory lock key of `orderChangeVersions` ("chat" in ASCII).
  static var changeVersionLock: Int { 0x6368_6174 }
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
