/// The database the store's rules run on, and its one writer (the shape of GRDB's
/// `DatabaseWriter`): `ServerStore` writes each rule once, as a closure over a
/// `StoreDatabase`, and hands it to `read` or `write`; the backend decides where it runs and
/// when a write is durable.
///
/// - `SQLiteStoreBackend` (here, the default): one file, one connection, writes
///   group-committed on the store's serial executor.
/// - `PostgresStoreBackend` (`ChatServerPostgres`, which only `chat-server` links): a pool of
///   connections, a transaction per write, several nodes on one database.
///
/// Every failure is a `StoreError`: a rule's own refusal, thrown from its closure, comes back
/// as thrown; what the database itself says is the backend's to translate (unreachable,
/// collided, a commit that failed, internal). Never an HTTP status: the service maps.
package protocol StoreBackend: Sendable {
  /// The SQL that differs between the databases.
  var dialect: SQLDialect { get }

  /// Runs `body` on one consistent view of the data (on PostgreSQL, one read-only snapshot:
  /// a page of conversations and its cursor agree).
  func read<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T

  /// Runs `body` as one write and returns once it is durable. A `StoreError` thrown by `body`
  /// refuses this write alone: nothing of it is kept.
  func write<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T

  /// Stores a plain message in one round trip when the backend can and every rule is plainly
  /// met; nil when it cannot, or a rule needs the whole rule set (nothing was written: the
  /// store then runs `write`). PostgreSQL's `chat_post_message`; SQLite has none (its
  /// group commit already shares one transaction among many sends).
  func postPlainMessage(_ message: PlainMessage) async throws(StoreError) -> PlainMessagePosted?

  /// A delete or an edit was stored: the text it replaced is owed an erasure.
  func textWasReplaced() async

  /// Reclaims what deletes and edits left where that waits for a timer (PostgreSQL's VACUUM,
  /// every `--vacuum-interval`); returns whether it ran. SQLite erases after each commit.
  func vacuumIfOwed() async -> Bool

  /// Waits for the erasure under way, if any (tests; a server about to stop).
  func finishErasure() async

  /// Commits, failures and erasures, for `/metrics`.
  func statistics() async -> StoreStatistics

  /// Closes the connections and their threads (SQLite's closes with the backend).
  func close() async
}

/// How the writes are doing, for `/metrics`.
package struct StoreStatistics: Sendable, Equatable {
  /// Transactions committed.
  package var commits = 0
  /// Writes that ran in committed transactions (accepted or refused one by one).
  package var committedWrites = 0
  /// Transactions that failed as a whole (every write in them a `StoreError.commitFailed`).
  package var failedCommits = 0
  /// Erasure passes (SQLite) or VACUUMs (PostgreSQL) that completed.
  package var erasurePasses = 0
  /// Erasure steps, checkpoints or VACUUMs that failed (what is owed waits for the next pass).
  package var failedErasures = 0
  /// A stored delete or edit still waits for its erasure (`chat_store_erasure_owed`).
  package var erasureOwed = false

  package init() {}
}
