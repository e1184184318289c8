import SQLite

/// What the store's rules (membership, sequences, idempotency, visibility, pushes) run their
/// SQL on, inside one read or one write of a `StoreBackend`. Two implementations, one set of
/// rules and one SQL text: SQLite's connection (`SQLiteStoreDatabase`, the default, one file,
/// one writer) and a pooled PostgreSQL connection (`PostgresStoreDatabase` in
/// `ChatServerPostgres`: several `chat-server` nodes on one database). The SQL is written to
/// mean the same on both: `?` placeholders, `CASE` rather than SQLite's two-argument `max`,
/// `CAST(? AS TEXT)` where PostgreSQL could not infer a parameter's type, and `dialect` for
/// the little that differs.
package protocol StoreDatabase: AnyObject {
  var dialect: SQLDialect { get }
  func run(_ sql: String, values: [any SQLBindable]) throws
  func query<T>(
    _ sql: String, values: [any SQLBindable], map: (any StoreRow) throws -> T
  ) throws -> [T]
}

/// A row of a query's result, by column index.
package protocol StoreRow {
  func isNull(_ column: Int) -> Bool
  func int(_ column: Int) -> Int
  func optionalInt(_ column: Int) -> Int?
  func string(_ column: Int) -> String
  func optionalString(_ column: Int) -> String?
}

extension StoreDatabase {
  package func run(_ sql: String, _ values: any SQLBindable...) throws {
    try run(sql, values: values)
  }

  package func query<T>(
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
