import Foundation
import SQLite
import Testing

@Suite struct DatabaseTests {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sqlite-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  @Test func fileIsCreatedOwnerOnlyInWALMode() throws {
    let file = path("private.sqlite")
    let db = try Database(.file(file))
    try db.write {
      try $0.execute("CREATE TABLE t (x)")
      try $0.run("INSERT INTO t VALUES (1)")
    }
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try db.query("PRAGMA journal_mode") { $0.string(0) } == ["wal"])
    let wal = try FileManager.default.attributesOfItem(atPath: file + "-wal")
    #expect((wal[.posixPermissions] as? Int) == 0o600)
  }

  @Test func existingLooseFileIsTightened() throws {
    let file = path("loose.sqlite")
    _ = FileManager.default.createFile(
      atPath: file, contents: nil, attributes: [.posixPermissions: 0o644])
    _ = try Database(.file(file))
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test func failedWriteRollsBackAndNotifiesNobody() throws {
    let db = try Database(.memory)
    try db.execute("CREATE TABLE t (x INTEGER NOT NULL)")
    var heard: [Set<String>] = []
    db.observeChanges { heard.append($0) }
    struct Boom: Error {}
    #expect(throws: Boom.self) {
      try db.write { db in
        try db.run("INSERT INTO t VALUES (1)")
        throw Boom()
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    #expect(heard.isEmpty)
  }

  @Test func committedWriteNotifiesChangedTablesOnce() throws {
    let db = try Database(.memory)
    try db.execute("CREATE TABLE a (x); CREATE TABLE b (y)")
    var heard: [Set<String>] = []
    db.observeChanges { heard.append($0) }
    try db.write { db in
      try db.run("INSERT INTO a VALUES (1)")
      try db.run("INSERT INTO a VALUES (2)")
      try db.run("INSERT INTO b VALUES (3)")
    }
    #expect(heard == [["a", "b"]])
  }

  @Test func nestedWriteRollsBackOnlyItsSavepoint() throws {
    let db = try Database(.memory)
    try db.execute("CREATE TABLE t (x)")
    struct Boom: Error {}
    try db.write { db in
      try db.run("INSERT INTO t VALUES (1)")
      _ = try? db.write { db in
        try db.run("INSERT INTO t VALUES (2)")
        throw Boom()
      }
    }
    #expect(try db.query("SELECT x FROM t") { $0.int(0) } == [1])
  }

  @Test func isAutocommitTellsWhenSQLiteEndedTheTransactionItself() throws {
    let db = try Database(.memory)
    try db.execute(
      """
      CREATE TABLE t (x);
      CREATE TRIGGER abort_statement BEFORE INSERT ON t WHEN NEW.x = 'abort'
        BEGIN SELECT RAISE(ABORT, 'statement only'); END;
      CREATE TRIGGER rollback_all BEFORE INSERT ON t WHEN NEW.x = 'rollback'
        BEGIN SELECT RAISE(ROLLBACK, 'whole transaction'); END;
      """)
    #expect(db.isAutocommit)
    var states: [Bool] = []
    _ = try? db.write { db in
      try db.run("INSERT INTO t VALUES (1)")
      states.append(db.isAutocommit)
      _ = try? db.write { try $0.run("INSERT INTO t VALUES ('abort')") }
      states.append(db.isAutocommit)
      _ = try? db.write { try $0.run("INSERT INTO t VALUES ('rollback')") }
      states.append(db.isAutocommit)
    }
    #expect(states == [false, false, true])
    #expect(db.isAutocommit)
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
  }

  @Test func statementsAreCachedBySQL() throws {
    let db = try Database(.memory)
    let first = try db.statement("SELECT 1")
    let second = try db.statement("SELECT 1")
    #expect(first === second)
  }

  @Test func wrongNumberOfValuesIsAClearError() throws {
    let db = try Database(.memory)
    try db.execute("CREATE TABLE t (x, y)")
    let error = #expect(throws: SQLiteError.self) {
      try db.run("INSERT INTO t VALUES (?, ?)", 1)
    }
    #expect(error?.message.contains("expected 2 values, got 1") == true)
  }

  @Test func valuesRoundTrip() throws {
    let db = try Database(.memory)
    try db.execute("CREATE TABLE t (i, r, s, b, n)")
    let text = "héllo 👋🏽 \u{0}end"
    try db.run(
      "INSERT INTO t VALUES (?, ?, ?, ?, ?)", Int64.max, 1.5, text, [UInt8]([0, 1, 255]),
      Int?.none)
    let row = try db.query("SELECT i, r, s, b, n FROM t") {
      ($0.int(0), $0.double(1), $0.string(2), $0.blob(3), $0.optionalInt(4))
    }[0]
    #expect(row.0 == Int.max)
    #expect(row.1 == 1.5)
    #expect(row.2 == text)
    #expect(row.3 == [0, 1, 255])
    #expect(row.4 == nil)
  }

  @Test func fts5IsAvailable() throws {
    let db = try Database(.memory)
    try db.execute("CREATE VIRTUAL TABLE f USING fts5(body)")
    try db.run("INSERT INTO f (body) VALUES (?)", "hiking on sunday")
    #expect(try db.scalarInt("SELECT count(*) FROM f WHERE f MATCH 'sunday'") == 1)
  }

  @Test func aFileThatIsNotADatabaseIsReportedAsCorrupt() throws {
    let file = path("garbage.sqlite")
    try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: file))
    let error = #expect(throws: SQLiteError.self) { _ = try Database(.file(file)) }
    #expect(error?.isCorrupt == true)
  }

  @Test func deleteFilesRemovesTheCompanions() throws {
    let file = path("gone.sqlite")
    do {
      let db = try Database(.file(file))
      try db.execute("CREATE TABLE t (x)")
    }
    try Database.deleteFiles(at: file)
    for suffix in ["", "-wal", "-shm"] {
      #expect(!FileManager.default.fileExists(atPath: file + suffix))
    }
  }

  @Test func aWriteThatFindsNoRoomIsFullAndKeepsWhatWasThere() throws {
    let db = try Database(.file(path("small.sqlite")))
    try db.execute("CREATE TABLE t (x BLOB)")
    try db.run("INSERT INTO t VALUES (?)", [UInt8](repeating: 1, count: 1_000))
    // SQLite's own size limit, reached as a full disk is: SQLITE_FULL.
    try db.execute("PRAGMA max_page_count = \(try db.scalarInt("PRAGMA page_count") ?? 0)")
    let error = #expect(throws: SQLiteError.self) {
      try db.write { try $0.run("INSERT INTO t VALUES (?)", [UInt8](repeating: 2, count: 50_000)) }
    }
    #expect(error?.isFull == true)
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
    #expect(SQLiteError(code: 10, message: "disk I/O error", systemErrno: ENOSPC).isFull)
    #expect(!SQLiteError(code: 10, message: "disk I/O error", systemErrno: EIO).isFull)
  }

  /// What lets a database open and read on a full disk: its `-shm` is never made anew.
  @Test func aDatabaseThatKeepsItsLogFilesLeavesThemEmptiedAtClose() throws {
    let kept = path("kept.sqlite")
    let plain = path("plain.sqlite")
    for (file, keeps) in [(kept, true), (plain, false)] {
      let db = try Database(.file(file), keepsLogFiles: keeps)
      try db.write {
        try $0.execute("CREATE TABLE t (x)")
        try $0.run("INSERT INTO t VALUES ('a secret')")
      }
      db.close()
    }
    #expect(FileManager.default.fileExists(atPath: kept + "-shm"))
    let log = try FileManager.default.attributesOfItem(atPath: kept + "-wal")
    #expect((log[.size] as? Int) == 0)
    #expect(!FileManager.default.fileExists(atPath: plain + "-shm"))
    #expect(!FileManager.default.fileExists(atPath: plain + "-wal"))
    let reopened = try Database(.file(kept), keepsLogFiles: true)
    #expect(try reopened.query("SELECT x FROM t") { $0.string(0) } == ["a secret"])
  }
}
