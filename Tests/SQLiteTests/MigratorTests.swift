import SQLite
import Testing

@Suite struct MigratorTests {
  static func version1() -> Migrator {
    var migrator = Migrator()
    migrator.register("v1") { db in
      try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    }
    return migrator
  }

  static func version2() -> Migrator {
    var migrator = version1()
    migrator.register("v2") { db in
      try db.execute("ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    }
    return migrator
  }

  @Test func migrationsRunOnceAndAreRecorded() throws {
    let db = try Database(.memory)
    #expect(try Self.version2().migrate(db) == ["v1", "v2"])
    #expect(try Self.version2().migrate(db) == [])
    #expect(try Migrator.appliedIdentifiers(in: db) == ["v1", "v2"])
  }

  @Test func v2UpgradesADatabaseMadeByV1AndKeepsItsRows() throws {
    let db = try Database(.memory)
    try Self.version1().migrate(db)
    try db.run("INSERT INTO notes (body) VALUES (?)", "kept")
    #expect(try Self.version2().migrate(db) == ["v2"])
    let rows = try db.query("SELECT body, pinned FROM notes") { ($0.string(0), $0.int(1)) }
    #expect(rows.count == 1)
    #expect(rows[0].0 == "kept")
    #expect(rows[0].1 == 0)
  }

  @Test func aDatabaseFromANewerVersionIsRefused() throws {
    let db = try Database(.memory)
    try Self.version2().migrate(db)
    #expect(throws: MigrationError.unknownMigrations(["v2"])) {
      try Self.version1().migrate(db)
    }
  }

  @Test func aFailingMigrationLeavesNoTrace() throws {
    let db = try Database(.memory)
    var migrator = Self.version1()
    migrator.register("broken") { db in
      try db.execute("CREATE TABLE half (x)")
      try db.execute("THIS IS NOT SQL")
    }
    #expect(throws: SQLiteError.self) { try migrator.migrate(db) }
    #expect(try Migrator.appliedIdentifiers(in: db) == ["v1"])
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'half'") == 0)
  }
}
