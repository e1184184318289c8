import ChatAPI
import Postgres
import SQLite
import Support

/// The server's storage: conversations, members and their receipt numbers, messages, refresh
/// tokens, pushes owed, in one SQLite database (the default) or in PostgreSQL (several nodes).
/// The rules are written once, in SQL both databases run (`StoreDatabase`).
///
/// On SQLite, an actor on an injected serial executor (a `ThreadExecutor` in production, so
/// blocking SQLite calls and fsyncs never occupy the cooperative pool; the simulation's stepped
/// executor in tests), the one connection and the one writer of its file. Reads run directly
/// on the actor. Writes are group-committed (see `ServerStore+GroupCommit.swift`): each is
/// queued, and one transaction (one fsync) commits everything queued, every write in a
/// savepoint of its own; nobody is answered before that commit.
///
/// A file store runs in WAL mode with `synchronous=FULL`: an acknowledged write survives a
/// power cut. Its schema is versioned by `Migrator` (`v1`, …).
///
/// On PostgreSQL (`ServerStore+Postgres.swift`), each write is a transaction of its own on a
/// pooled connection, committed before anyone is answered; writes of one conversation run one
/// after the other (its row lock), so sequence numbers stay dense with writers on every node.
///
/// ## Topics
/// - Conversations: `createConversation`, `conversations(of:changedAfter:)`, `memberIds(of:visibleTo:)`
/// - Messages: `send(_:)`, `messages(in:visibleTo:query:)`
/// - Receipts: `raiseReceipt(_:in:by:upTo:)`, `receipts(in:visibleTo:)`
/// - Auth: `saveRefreshToken`, `rotateRefreshToken`
public actor ServerStore {
  /// Where the database lives.
  public enum Location: Sendable, Equatable {
    /// A private in-memory database: tests, the simulation, the client's in-memory server.
    case memory
    /// A database file, created with mode 0600 if missing.
    case file(path: String)
    /// A PostgreSQL database (a `postgres://` URL, as libpq reads it), shared by every node
    /// that names it; `connections` per node.
    case postgres(url: String, connections: Int)

    /// The database file inside a server's data folder.
    public static func dataFolder(_ folder: String) -> Location {
      .file(path: folder + "/chat.sqlite")
    }

    /// How many connections a node opens to PostgreSQL unless told.
    public static let defaultPostgresConnections = 8
  }

  /// Where the store's SQL runs.
  enum Backend {
    /// One connection, one writer, group commit.
    case sqlite(SQLiteStoreDatabase)
    /// A pool; each write is a transaction of its own on one of its connections.
    case postgres(PostgresPool)
  }

  let backend: Backend
  nonisolated let executor: any SerialTaskExecutor
  /// At most this many writes share one transaction; more wait for the next.
  let maxBatchSize: Int

  var pendingWrites: [any PendingWrite] = []
  var flushScheduled = false
  var statistics = StoreStatistics()
  /// SQLite: takes deleted and replaced text out of the search indexes' pages
  /// (`ServerStore+Erasure.swift`), and its task while a pass runs.
  var eraser = SegmentEraser(indexes: ["message_search", "message_search_unspaced"])
  var erasing: Task<Void, Never>?
  /// PostgreSQL: a delete or an edit was stored since the last VACUUM.
  var vacuumOwed = false

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// Opens (creating if needed) the database and applies the migrations this version knows.
  /// Throws `MigrationError.unknownMigrations` for a database written by a newer version.
  public init(
    _ location: Location, executor: any SerialTaskExecutor, maxBatchSize: Int = 1_024
  ) throws {
    precondition(maxBatchSize >= 1)
    switch location {
    case .memory, .file:
      let database =
        if case .file(let path) = location {
          try Database(.file(path), durability: .full)
        } else {
          try Database(.memory)
        }
      // A delete is real (API.md): what SQLite frees is overwritten, not left in free pages.
      try database.execute("PRAGMA secure_delete = ON")
      try Self.migrator.migrate(database)
      backend = .sqlite(SQLiteStoreDatabase(database))
    case .postgres(let url, let connections):
      try Self.postgresMigrations.migrate(url)
      let pool = PostgresPool(url: url, size: connections)
      backend = .postgres(pool)
    }
    self.executor = executor
    self.maxBatchSize = maxBatchSize
    // What an earlier process left owed (a kill between a delete and its pass) is erased now.
    executor.spawn { await self.eraseIfOwed() }
  }

  /// The SQLite database, for what only SQLite has (group commit, checkpoints, test hooks).
  var database: Database? {
    if case .sqlite(let sqlite) = backend { return sqlite.database }
    return nil
  }

  /// Runs a read: on SQLite at once on this actor (which serializes it with the group
  /// commits); on PostgreSQL on a pooled connection, in one read-only snapshot (a page of
  /// conversations and its cursor agree). A database failure is a 500, a database that cannot
  /// be reached a 503.
  func reading<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(ServiceError) -> T {
    switch backend {
    case .sqlite(let sqlite):
      do {
        return try body(sqlite)
      } catch {
        throw Self.serviceError(error)
      }
    case .postgres(let pool):
      do {
        return try await pool.withConnection { connection in
          try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
          do {
            let value = try body(PostgresStoreDatabase(connection))
            try connection.execute("COMMIT")
            return value
          } catch {
            try? connection.execute("ROLLBACK")
            throw error
          }
        }
      } catch {
        throw Self.serviceError(error)
      }
    }
  }

  /// A store failure as the service answers it.
  static func serviceError(_ error: any Error) -> ServiceError {
    switch error {
    case let refusal as ServiceError: refusal
    case let postgres as PostgresError where postgres.isConnectionLost:
      .unavailable("The database cannot be reached; try again.")
    case let postgres as PostgresError where postgres.isConflict:
      // Still colliding after `postgresWriteAttempts`: nothing was kept; a retry may pass.
      .unavailable("The write collided with others too often: \(postgres.sqlState ?? "")")
    default: .internal(String(describing: error))
    }
  }

  /// Whether the database answers: what `/healthz` reports.
  func checkHealth() async -> Bool {
    do {
      _ = try await reading { db in try db.scalarInt("SELECT 1") }
      return true
    } catch {
      return false
    }
  }

  /// Closes PostgreSQL connections and their threads (SQLite closes with the store).
  func close() async {
    if case .postgres(let pool) = backend { await pool.shutdown() }
  }

  /// The current member ids of a conversation, sorted, for `user` about to act in it (post,
  /// receipts, typing, member changes): a 404 when `user` was never a member (or the
  /// conversation does not exist: the same answer, so membership does not leak), a 403 when
  /// `user` left or was removed (a former member may read what it saw, not act).
  static func memberIds(
    _ db: any StoreDatabase, of conversation: String, actingAs user: String
  ) throws -> [String] {
    let (members, isMember) = try memberIds(db, of: conversation, formerAllowed: user)
    guard isMember else { throw ServiceError.formerMember }
    return members
  }

  /// The current member ids, sorted, and whether `user` is one; a 404 when `user` was never a
  /// member. For a retry, which a former member still gets answered (the change was stored
  /// while it was a member).
  static func memberIds(
    _ db: any StoreDatabase, of conversation: String, formerAllowed user: String
  ) throws -> (members: [String], isMember: Bool) {
    var members: [String] = []
    var standing: String?
    _ = try db.query(
      "SELECT user_id, membership FROM members WHERE conversation_id = ? ORDER BY user_id",
      conversation
    ) { row in
      let membership = row.string(1)
      if membership == "member" { members.append(row.string(0)) }
      if row.string(0) == user { standing = membership }
    }
    guard let standing else { throw ServiceError.unknownConversation }
    return (members, standing == "member")
  }

  func memberIds(of conversation: String, actingAs user: String) async throws(ServiceError)
    -> [String]
  {
    try await reading { db in try Self.memberIds(db, of: conversation, actingAs: user) }
  }

  /// Everyone who was ever a member, sorted (`ServerKnownBugs.deliverToRemovedMembers` only).
  func everMemberIds(of conversation: String) async throws(ServiceError) -> [String] {
    try await reading { db in
      try db.query(
        "SELECT user_id FROM members WHERE conversation_id = ? ORDER BY user_id", conversation
      ) { $0.string(0) }
    }
  }

  /// Runs `body` with the SQLite database: for tests that inject faults (a trigger that
  /// fails a write) or inspect rows.
  func withDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) rethrows -> T {
    guard let database else { preconditionFailure("withDatabase is for a SQLite store") }
    return try body(database)
  }
}

/// How the group commit is doing, for `/metrics`.
struct StoreStatistics: Sendable, Equatable {
  /// Transactions committed.
  var commits = 0
  /// Writes that ran in committed transactions (accepted or refused one by one).
  var committedWrites = 0
  /// Transactions that failed as a whole (every write in them answered 503).
  var failedCommits = 0
  /// Erasure passes (SQLite) or VACUUMs (PostgreSQL) that completed.
  var erasurePasses = 0
  /// Erasure steps, checkpoints or VACUUMs that failed (what is owed waits for the next pass).
  var failedErasures = 0
  /// A stored delete or edit still waits for its erasure (`ServerStore.erasureOwed`).
  var erasureOwed = false
}
