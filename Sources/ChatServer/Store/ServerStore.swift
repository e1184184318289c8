import ChatAPI
import SQLite
import Support

/// The server's storage: conversations, members and their receipt numbers, messages, refresh
/// tokens, in one SQLite database.
///
/// An actor on an injected serial executor (a `ThreadExecutor` in production, so blocking
/// SQLite calls and fsyncs never occupy the cooperative pool; the simulation's stepped
/// executor in tests), the one connection and the one writer of its file. Reads run directly
/// on the actor. Writes are group-committed (see `ServerStore+GroupCommit.swift`): each is
/// queued, and one transaction (one fsync) commits everything queued, every write in a
/// savepoint of its own; nobody is answered before that commit.
///
/// A file store runs in WAL mode with `synchronous=FULL`: an acknowledged write survives a
/// power cut. Its schema is versioned by `Migrator` (`v1`, …).
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

    /// The database file inside a server's data folder.
    public static func dataFolder(_ folder: String) -> Location {
      .file(path: folder + "/chat.sqlite")
    }
  }

  let database: Database
  nonisolated let executor: any SerialTaskExecutor
  /// At most this many writes share one transaction; more wait for the next.
  let maxBatchSize: Int

  var pendingWrites: [any PendingWrite] = []
  var flushScheduled = false
  var statistics = StoreStatistics()

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// Opens (creating if needed) the database and applies the migrations this version knows.
  /// Throws `MigrationError.unknownMigrations` for a file written by a newer version.
  public init(
    _ location: Location, executor: any SerialTaskExecutor, maxBatchSize: Int = 1_024
  ) throws {
    precondition(maxBatchSize >= 1)
    switch location {
    case .memory: database = try Database(.memory)
    case .file(let path): database = try Database(.file(path), durability: .full)
    }
    // A delete is real (API.md): what SQLite frees is overwritten, not left in free pages.
    try database.execute("PRAGMA secure_delete = ON")
    try Self.migrator.migrate(database)
    self.executor = executor
    self.maxBatchSize = maxBatchSize
  }

  /// Runs a read, turning a SQLite failure into a 500.
  func reading<T>(_ body: () throws -> T) throws(ServiceError) -> T {
    do {
      return try body()
    } catch let error as ServiceError {
      throw error
    } catch {
      throw .internal(String(describing: error))
    }
  }

  /// The current member ids of a conversation, sorted, for `user` about to act in it (post,
  /// receipts, typing, member changes): a 404 when `user` was never a member (or the
  /// conversation does not exist: the same answer, so membership does not leak), a 403 when
  /// `user` left or was removed (a former member may read what it saw, not act).
  static func memberIds(
    _ db: Database, of conversation: String, actingAs user: String
  ) throws -> [String] {
    let (members, isMember) = try memberIds(db, of: conversation, formerAllowed: user)
    guard isMember else { throw ServiceError.formerMember }
    return members
  }

  /// The current member ids, sorted, and whether `user` is one; a 404 when `user` was never a
  /// member. For a retry, which a former member still gets answered (the change was stored
  /// while it was a member).
  static func memberIds(
    _ db: Database, of conversation: String, formerAllowed user: String
  ) throws -> (members: [String], isMember: Bool) {
    var members: [String] = []
    var standing: String?
    try db.query(
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

  func memberIds(of conversation: String, actingAs user: String) throws(ServiceError) -> [String] {
    try reading { try Self.memberIds(database, of: conversation, actingAs: user) }
  }

  /// Everyone who was ever a member, sorted (`ServerKnownBugs.deliverToRemovedMembers` only).
  func everMemberIds(of conversation: String) throws(ServiceError) -> [String] {
    try reading {
      try database.query(
        "SELECT user_id FROM members WHERE conversation_id = ? ORDER BY user_id", conversation
      ) { $0.string(0) }
    }
  }

  /// Runs `body` with the database: for tests that inject faults (a trigger that fails a
  /// write) or inspect rows.
  func withDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) rethrows -> T {
    try body(database)
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
  /// Checkpoints after a delete that failed (the erased text waits for the next one).
  var failedErasures = 0
}
