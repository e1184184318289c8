import CSQLite
import Foundation
import Support

/// One SQLite connection.
///
/// A `Database` is not thread-safe by itself: it belongs to one serial executor (see
/// `ThreadExecutor`), the one writer of its file. Statements are prepared once and cached by
/// their SQL text. Writes go through `write(_:)`, one transaction each; observers registered
/// with `observeChanges(_:)` hear which tables a committed transaction changed, and nothing
/// about a transaction that rolled back.
///
/// A file database is created with mode 0600 (the owner alone reads it), and its `-wal` and
/// `-shm` files inherit that mode from it.
public final class Database {
  /// Where the database lives.
  public enum Location: Sendable, Equatable {
    /// A private in-memory database, gone when the connection closes.
    case memory
    /// A file; created with mode 0600 when it does not exist.
    case file(String)
  }

  /// How hard each commit waits for the disk.
  public enum Durability: String, Sendable {
    /// `synchronous=NORMAL` in WAL mode: a crash of the process loses nothing; a power loss
    /// loses the commits since the last checkpoint (the simulation's power losses show it).
    case normal = "NORMAL"
    /// `synchronous=FULL`: every commit is on disk before it returns. What a server needs
    /// before it acknowledges, and a device before it shows what the user did as saved.
    case full = "FULL"
  }

  let handle: OpaquePointer
  public let location: Location
  private var statements: [String: Statement] = [:]
  private var transactionDepth = 0
  private var changedTables: Set<String> = []
  private var observers: [UInt64: (Set<String>) -> Void] = [:]
  private var nextObserverID: UInt64 = 0

  /// Opens (and creates) a database. `incrementalVacuum`: a new database frees its pages on
  /// `PRAGMA incremental_vacuum` (`auto_vacuum = INCREMENTAL`, which SQLite takes only before
  /// the first table and before WAL; an existing file keeps its mode until a `VACUUM`).
  ///
  /// `keepsLogFiles`: the `-wal` and `-shm` files stay when the connection closes
  /// (`SQLITE_FCNTL_PERSIST_WAL`), the log emptied to 0 bytes (`journal_size_limit = 0`), so
  /// the file opens and reads on a full disk, where SQLite cannot make a new `-shm`: a phone
  /// whose storage filled still shows what it holds. Writes still need room.
  public init(
    _ location: Location, durability: Durability = .normal, incrementalVacuum: Bool = false,
    keepsLogFiles: Bool = false
  ) throws(SQLiteError) {
    self.location = location
    let path: String
    switch location {
    case .memory:
      path = ":memory:"
    case .file(let filePath):
      path = filePath
      try Self.createPrivateFile(at: filePath)
    }
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK, let handle else {
      let error = SQLiteError(db: handle, code: code)
      sqlite3_close_v2(handle)
      throw error
    }
    self.handle = handle
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, 5_000)
    installUpdateHook()
    do {
      // Reading the schema here fails fast on a file that is not a database.
      try execute("PRAGMA foreign_keys = ON")
      // Only when it is not so already: setting it writes the file's header, which a full
      // disk refuses.
      if incrementalVacuum, try scalarInt("PRAGMA auto_vacuum") != 2 {
        try execute("PRAGMA auto_vacuum = INCREMENTAL")
      }
      if case .file = location, keepsLogFiles {
        var persist: Int32 = 1
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        guard code == SQLITE_OK else { throw SQLiteError(db: handle, code: code) }
        try execute("PRAGMA journal_size_limit = 0")
      }
      if case .file = location {
        let mode = try query("PRAGMA journal_mode = WAL") { $0.string(0) }.first
        guard mode?.lowercased() == "wal" else {
          throw SQLiteError(
            code: SQLITE_ERROR, message: "could not enable WAL (got \(mode ?? "?"))")
        }
      }
      try execute("PRAGMA synchronous = \(durability.rawValue)")
    } catch let error as SQLiteError {
      statements.removeAll()
      sqlite3_close_v2(handle)
      throw error
    } catch {
      fatalError("unreachable: \(error)")
    }
  }

  deinit {
    close()
  }

  private var isClosed = false

  /// Finalizes the statements and closes the connection (what `deinit` does), so the files can
  /// be deleted while this object is still referenced. Later calls fail with `SQLITE_MISUSE`.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    statements.removeAll()
    sqlite3_update_hook(handle, nil, nil)
    sqlite3_close_v2(handle)
  }

  /// Creates an empty file with mode 0600 unless one exists, and tightens an existing one.
  private static func createPrivateFile(at path: String) throws(SQLiteError) {
    let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let reason = String(cString: strerror(errno))
      throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot create \(path): \(reason)")
    }
    fchmod(fd, 0o600)
    Glibc.close(fd)
  }

  /// A database file and its companions, as SQLite names them (whether they exist or not).
  public static func files(at path: String) -> [String] {
    ["", "-wal", "-shm", "-journal"].map { path + $0 }
  }

  /// Deletes a database file and its `-wal` and `-shm` companions. Close it first.
  public static func deleteFiles(at path: String) throws {
    for file in files(at: path) where FileManager.default.fileExists(atPath: file) {
      try FileManager.default.removeItem(atPath: file)
    }
  }

  /// How many times `bytes` occur in the database's files as they are on disk (the file, its
  /// log, its journal): what an erasure must bring to zero, read the way `grep -a` reads them.
  public static func occurrences(of bytes: some Collection<UInt8>, inFilesAt path: String)
    -> Int
  {
    let needle = Data(bytes)
    var count = 0
    for file in files(at: path) {
      guard let data = FileManager.default.contents(atPath: file) else { continue }
      var start = data.startIndex
      while let found = data.range(of: needle, in: start..<data.endIndex) {
        count += 1
        start = found.upperBound
      }
    }
    return count
  }

  // MARK: - Statements

  /// Runs one or more SQL statements without parameters.
  public func execute(_ sql: String) throws(SQLiteError) {
    guard !isClosed else {
      throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed", sql: sql)
    }
    var message: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, sql, nil, nil, &message)
    if code != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
      sqlite3_free(message)
      throw SQLiteError(
        code: code, extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql,
        systemErrno: sqlite3_system_errno(handle))
    }
    flushChangesIfAutocommit()
  }

  /// The cached prepared statement for `sql`.
  public func statement(_ sql: String) throws(SQLiteError) -> Statement {
    guard !isClosed else {
      throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed", sql: sql)
    }
    if let cached = statements[sql] { return cached }
    let statement = try Statement(database: self, sql: sql)
    statements[sql] = statement
    return statement
  }

  /// Runs one statement with parameters.
  public func run(_ sql: String, _ values: any SQLBindable...) throws(SQLiteError) {
    try statement(sql).run(values)
    flushChangesIfAutocommit()
  }

  /// Runs one statement with an array of parameters.
  public func run(_ sql: String, values: [any SQLBindable]) throws(SQLiteError) {
    try statement(sql).run(values)
    flushChangesIfAutocommit()
  }

  /// Runs a query and maps each row. `capacity`: the rows expected, when known (a `LIMIT`), so
  /// the result is not copied as it grows.
  public func query<T>(
    _ sql: String, _ values: any SQLBindable..., capacity: Int = 0, map: (Row) throws -> T
  ) throws -> [T] {
    try statement(sql).query(values, capacity: capacity, map)
  }

  /// Runs a query and hands each row to `body`.
  public func forEachRow(
    _ sql: String, _ values: any SQLBindable..., body: (Row) throws -> Void
  ) throws {
    try statement(sql).forEachRow(values, body)
  }

  /// Runs a query with an array of parameters and maps each row.
  public func query<T>(
    _ sql: String, values: [any SQLBindable], map: (Row) throws -> T
  ) throws -> [T] {
    try statement(sql).query(values, map)
  }

  /// The first column of the first row, as an integer, or nil when there is no row or it is NULL.
  public func scalarInt(_ sql: String, _ values: any SQLBindable...) throws -> Int? {
    try statement(sql).query(values) { $0.optionalInt(0) }.first ?? nil
  }

  /// Rows changed by the last statement.
  public var changes: Int { Int(sqlite3_changes64(handle)) }

  public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  // MARK: - Transactions

  /// Runs `body` in one transaction (`BEGIN IMMEDIATE`, so the write lock is taken up front);
  /// commits when it returns, rolls back when it throws. Nested calls use savepoints.
  ///
  /// `BEGIN`, `SAVEPOINT`, `RELEASE` and `COMMIT` run as cached prepared statements: a server
  /// that group-commits runs one savepoint per request, and parsing them each time showed in
  /// its profile.
  public func write<T>(_ body: (Database) throws -> T) throws -> T {
    let savepoint = "sp\(transactionDepth)"
    if transactionDepth == 0 {
      try statement("BEGIN IMMEDIATE").run()
    } else {
      try statement("SAVEPOINT \(savepoint)").run()
    }
    transactionDepth += 1
    let result: T
    do {
      result = try body(self)
    } catch {
      transactionDepth -= 1
      if transactionDepth == 0 {
        rollback()
      } else {
        try? execute("ROLLBACK TO \(savepoint)")
        try? execute("RELEASE \(savepoint)")
      }
      throw error
    }
    transactionDepth -= 1
    if transactionDepth == 0 {
      do {
        try statement("COMMIT").run()
      } catch {
        rollback()
        throw error
      }
      notifyChanges()
    } else {
      try statement("RELEASE \(savepoint)").run()
    }
    return result
  }

  /// Ends the open transaction and forgets its changes, so no observer hears of them.
  private func rollback() {
    sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    changedTables.removeAll()
  }

  /// True inside `write(_:)`.
  public var isInTransaction: Bool { transactionDepth > 0 }

  /// True when SQLite holds no transaction open. After some failures (`SQLITE_FULL`,
  /// `SQLITE_IOERR`, `SQLITE_NOMEM`, a `RAISE(ROLLBACK)`, …) SQLite rolls the whole transaction
  /// back by itself, even inside `write(_:)`: code that catches a failed statement there and
  /// carries on must check this first, or its next statements would run outside any transaction.
  public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

  // MARK: - Change notification

  /// Registers `observer`, called after every committed transaction with the names of the
  /// tables it changed (FTS shadow tables included). Returns a token for `removeObserver(_:)`.
  ///
  /// SQLite's update hook does not fire for `WITHOUT ROWID` tables or for a `DELETE` without
  /// a `WHERE` clause (the truncate optimisation); do not rely on either for notification.
  @discardableResult
  public func observeChanges(_ observer: @escaping (Set<String>) -> Void) -> UInt64 {
    nextObserverID += 1
    observers[nextObserverID] = observer
    return nextObserverID
  }

  public func removeObserver(_ token: UInt64) {
    observers[token] = nil
  }

  private func installUpdateHook() {
    let context = Unmanaged.passUnretained(self).toOpaque()
    sqlite3_update_hook(
      handle,
      { context, _, _, table, _ in
        guard let context, let table else { return }
        let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
        database.changedTables.insert(String(cString: table))
      }, context)
  }

  private func flushChangesIfAutocommit() {
    if transactionDepth == 0, sqlite3_get_autocommit(handle) != 0 { notifyChanges() }
  }

  private func notifyChanges() {
    guard !changedTables.isEmpty else { return }
    let tables = changedTables
    changedTables.removeAll()
    for (_, observer) in observers.sorted(by: { $0.key < $1.key }) { observer(tables) }
  }
}
