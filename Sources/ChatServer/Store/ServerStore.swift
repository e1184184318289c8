import ChatAPI
import SQLite
import Support

/// The server's storage: conversations, members and their receipt numbers, messages, refresh
/// tokens, pushes owed. Its rules (membership, visibility ranges, idempotency, sequences,
/// pushes owed) are written once, in SQL both databases run (`StoreDatabase`), and run on a
/// `StoreBackend`: `reading` and `writing` hand each rule to it.
///
/// The backend is SQLite's by default (`SQLiteStoreBackend`: one file, group commit, on this
/// store's executor), or one `chat-server` opens on PostgreSQL (`ChatServerPostgres`: several
/// nodes on one database, each write a transaction of its own whose conversation's row lock
/// keeps sequence numbers dense with writers on every node). Either way a write is answered
/// only once it is durable.
///
/// An actor on an injected serial executor (a `ThreadExecutor` in production; the
/// simulation's stepped executor in tests).
///
/// ## Topics
/// - Conversations: `createConversation`, `conversations(of:changedAfter:)`, `memberIds(of:visibleTo:)`
/// - Messages: `send(_:)`, `messages(in:visibleTo:query:)`
/// - Receipts: `raiseReceipt(_:in:by:upTo:)`, `receipts(in:visibleTo:)`
/// - Auth: `saveRefreshToken`, `rotateRefreshToken`
public actor ServerStore {
  /// Where a SQLite database lives.
  public enum Location: Sendable, Equatable {
    /// A private in-memory database: tests, the simulation, the client's in-memory server.
    case memory
    /// A database file, created with mode 0600 if missing.
    case file(path: String)

    /// The database file inside a server's data folder.
    public static func dataFolder(_ folder: String) -> Location {
      .file(path: folder + "/chat.sqlite")
    }
  }

  /// Where the store's SQL runs, and its one writer.
  let backend: any StoreBackend
  nonisolated let executor: any SerialTaskExecutor

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// Opens (creating if needed) the SQLite database and applies the migrations this version
  /// knows. Throws `MigrationError.unknownMigrations` for a database written by a newer
  /// version. At most `maxBatchSize` writes share one group commit.
  public init(
    _ location: Location, executor: any SerialTaskExecutor, maxBatchSize: Int = 1_024
  ) throws {
    try self.init(location, executor: executor, maxBatchSize: maxBatchSize, knownBugs: [])
  }

  /// The same, with the simulation's known bugs (`acknowledgeUnsynced` opens the file with
  /// `synchronous=NORMAL`).
  package init(
    _ location: Location, executor: any SerialTaskExecutor, maxBatchSize: Int = 1_024,
    knownBugs: ServerKnownBugs
  ) throws {
    let backend = try SQLiteStoreBackend(
      location, executor: executor, maxBatchSize: maxBatchSize,
      durability: knownBugs.contains(.acknowledgeUnsynced) ? .normal : .full)
    self.init(backend: backend, executor: executor)
  }

  /// The store over `backend` (a SQLite one must run on `executor` too).
  package init(backend: any StoreBackend, executor: any SerialTaskExecutor) {
    self.backend = backend
    self.executor = executor
  }

  /// Runs a read on the backend (SQLite: at once on this executor, serialized with the group
  /// commits; PostgreSQL: a pooled connection, in one read-only snapshot).
  func reading<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T {
    try await backend.read(body)
  }

  /// Runs a write on the backend and returns once it is durable. Throwing from `operation`
  /// refuses this write alone, leaving no trace in the database.
  func writing<T: Sendable>(
    _ operation: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T {
    try await backend.write(operation)
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

  /// Commits, failures and erasures, with whether a delete or an edit still waits for its
  /// erasure: for `/metrics`.
  func reportedStatistics() async -> StoreStatistics {
    await backend.statistics()
  }

  /// `reportedStatistics()`, for tests.
  var statistics: StoreStatistics {
    get async { await backend.statistics() }
  }

  /// Waits for the erasure under way, if any (tests; a server about to stop).
  public func finishErasure() async {
    await backend.finishErasure()
  }

  /// On PostgreSQL, VACUUMs what deletes and edits on this node rewrote, when any was stored
  /// since the last call (`chat-server` calls it every `--vacuum-interval`). Returns whether
  /// it ran; SQLite erases after each commit instead.
  @discardableResult
  public func vacuumIfOwed() async -> Bool {
    await backend.vacuumIfOwed()
  }

  /// Closes the backend's connections and their threads.
  func close() async {
    await backend.close()
  }

  /// The current member ids of a conversation, sorted, for `user` about to act in it (post,
  /// receipts, typing, member changes): a 404 when `user` was never a member (or the
  /// conversation does not exist: the same answer, so membership does not leak), a 403 when
  /// `user` left or was removed (a former member may read what it saw, not act).
  static func memberIds(
    _ db: any StoreDatabase, of conversation: String, actingAs user: String
  ) throws -> [String] {
    let (members, isMember) = try memberIds(db, of: conversation, formerAllowed: user)
    guard isMember else { throw StoreError.formerMember }
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
    guard let standing else { throw StoreError.notAMember }
    return (members, standing == "member")
  }

  func memberIds(of conversation: String, actingAs user: String) async throws(StoreError)
    -> [String]
  {
    try await reading { db in try Self.memberIds(db, of: conversation, actingAs: user) }
  }

  /// Everyone who was ever a member, sorted (`ServerKnownBugs.deliverToRemovedMembers` only).
  func everMemberIds(of conversation: String) async throws(StoreError) -> [String] {
    try await reading { db in
      try db.query(
        "SELECT user_id FROM members WHERE conversation_id = ? ORDER BY user_id", conversation
      ) { $0.string(0) }
    }
  }

  /// Runs `body` with the SQLite database: for tests that inject faults (a trigger that
  /// fails a write) or inspect rows.
  func withDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) async rethrows -> T {
    guard let sqlite = backend as? SQLiteStoreBackend else {
      preconditionFailure("withDatabase is for a SQLite store")
    }
    return try await sqlite.withDatabase(body)
  }
}
