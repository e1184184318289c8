import SQLite
import Support

/// The store on SQLite (the default): one database, one connection, one writer, on the store's
/// serial executor (a `ThreadExecutor` in production, so blocking SQLite calls and fsyncs never
/// occupy the cooperative pool; the simulation's stepped executor in tests). It shares that
/// executor with its `ServerStore`, so the store's calls run at once, with no hop.
///
/// Reads run directly on this actor. Writes are group-committed
/// (`SQLiteStoreBackend+GroupCommit.swift`): each is queued, and one transaction (one fsync)
/// commits everything queued, every write in a savepoint of its own; nobody is answered
/// before that commit. After a commit that deleted or edited text, an erasure pass runs
/// (`SQLiteStoreBackend+Erasure.swift`).
///
/// A file runs in WAL mode with `synchronous=FULL`: an acknowledged write survives a power
/// cut. Its schema is versioned by `Migrator` (`ServerStore.migrator`: `v1`, …).
actor SQLiteStoreBackend: StoreBackend {
  let connection: SQLiteStoreDatabase
  nonisolated let executor: any SerialTaskExecutor
  /// At most this many writes share one transaction; more wait for the next.
  let maxBatchSize: Int

  var pendingWrites: [any PendingWrite] = []
  var flushScheduled = false
  var counts = StoreStatistics()
  /// Takes deleted and replaced text out of the search indexes' pages, and its task while a
  /// pass runs.
  var eraser = SegmentEraser(indexes: ["message_search", "message_search_unspaced"])
  var erasing: Task<Void, Never>?

  nonisolated var dialect: SQLDialect { .sqlite }

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  var database: Database { connection.database }

  /// Opens (creating if needed) the database and applies the migrations this version knows.
  /// Throws `MigrationError.unknownMigrations` for a database written by a newer version.
  /// `durability` is `.full` but in the simulation's known bug: a server acknowledges only
  /// what is synced.
  init(
    _ location: ServerStore.Location, executor: any SerialTaskExecutor, maxBatchSize: Int,
    durability: Database.Durability = .full
  ) throws {
    precondition(maxBatchSize >= 1)
    let database =
      switch location {
      case .file(let path): try Database(.file(path), durability: durability)
      case .memory: try Database(.memory)
      }
    // A delete is real (API.md): what SQLite frees is overwritten, not left in free pages.
    try database.execute("PRAGMA secure_delete = ON")
    try ServerStore.migrator.migrate(database)
    connection = SQLiteStoreDatabase(database)
    self.executor = executor
    self.maxBatchSize = maxBatchSize
    // What an earlier process left owed (a kill between a delete and its pass) is erased now.
    executor.spawn { await self.eraseIfOwed() }
  }

  /// Runs a read at once on this actor, which serializes it with the group commits. A
  /// database failure is `internal`.
  func read<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) throws(StoreError) -> T {
    do {
      return try body(connection)
    } catch let refusal as StoreError {
      throw refusal
    } catch {
      throw .internal(String(describing: error))
    }
  }

  /// SQLite's erasure follows each commit (`eraseIfOwed`): nothing to note.
  func textWasReplaced() {}

  /// SQLite erases after each commit: no VACUUM.
  func vacuumIfOwed() -> Bool { false }

  /// Nothing to close: the connection closes with this backend.
  func close() {}

  /// Runs `body` with the database: for tests that inject faults (a trigger that fails a
  /// write) or inspect rows.
  func withDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) rethrows -> T {
    try body(database)
  }
}

/// The SQLite side of `StoreDatabase`: the backend's one connection.
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
