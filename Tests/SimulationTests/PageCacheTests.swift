import ChatWorld
import Foundation
import SQLite
import Testing

/// The page-cache model under the simulation's SQLite files: a power loss keeps exactly what
/// the last fsync made durable, and touches nothing it does not track.
@Suite struct PageCacheTests {
  /// A fresh folder whose database the model tracks.
  final class Folder {
    let path: String
    var database: String { path + "/db.sqlite" }

    init() throws {
      try PageCache.install()
      path = NSTemporaryDirectory() + "page-cache-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      PageCache.track(path + "/")
    }

    deinit {
      PageCache.forget(path + "/")
      try? FileManager.default.removeItem(atPath: path)
    }

    /// `count` commits of one row each.
    func commit(_ count: Int, to database: Database, from first: Int = 1) throws {
      for number in first..<(first + count) {
        try database.write { try $0.run("INSERT INTO t (n) VALUES (?)", number) }
      }
    }

    /// The rows a new connection finds, or nil when the table is gone.
    func rowsAfterReopening() throws -> [Int]? {
      let reopened = try Database(.file(database))
      defer { reopened.close() }
      #expect(try reopened.query("PRAGMA integrity_check") { $0.string(0) } == ["ok"])
      guard try reopened.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 't'") == 1
      else { return nil }
      return try reopened.query("SELECT n FROM t ORDER BY n") { $0.int(0) }
    }
  }

  @Test func everyCommitOfAFullDatabaseOutlivesThePower() throws {
    let folder = try Folder()
    let database = try Database(.file(folder.database), durability: .full)
    try database.execute("CREATE TABLE t (n INTEGER NOT NULL)")
    try folder.commit(3, to: database)
    #expect(try PageCache.losePower(under: folder.path + "/") == 0)
    #expect(try folder.rowsAfterReopening() == [1, 2, 3])
  }

  @Test func aNormalDatabaseLosesTheCommitsSinceItsLastCheckpoint() throws {
    let folder = try Folder()
    let database = try Database(.file(folder.database), durability: .normal)
    try database.execute("CREATE TABLE t (n INTEGER NOT NULL)")
    try folder.commit(2, to: database)
    // A checkpoint syncs the log and the database file: rows 1 and 2 are on the disk.
    try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    try folder.commit(2, to: database, from: 3)
    #expect(try PageCache.losePower(under: folder.path + "/") > 0)
    // The connection died with the machine.
    #expect(throws: SQLiteError.self) { try database.scalarInt("SELECT count(*) FROM t") }
    #expect(try folder.rowsAfterReopening() == [1, 2])
  }

  @Test func aNormalDatabaseNeverCheckpointedComesBackEmpty() throws {
    let folder = try Folder()
    let database = try Database(.file(folder.database), durability: .normal)
    try database.execute("CREATE TABLE t (n INTEGER NOT NULL)")
    try folder.commit(2, to: database)
    #expect(try PageCache.losePower(under: folder.path + "/") > 0)
    #expect(try folder.rowsAfterReopening() == nil)
  }

  /// An erasure pass empties the log (`SegmentEraser.checkpoint`); a power loss must not give
  /// the log its old pages back, the erased text with them. (SQLite does not sync a
  /// truncation: without the pass's own sync, the text came back in the `-wal` file.)
  @Test func anEmptiedLogStaysEmptyThroughAPowerLoss() throws {
    let folder = try Folder()
    let database = try Database(.file(folder.database), durability: .full)
    try database.execute("PRAGMA secure_delete = ON")
    try database.execute("CREATE TABLE notes (text TEXT NOT NULL)")
    let secret = "a text to forget 7f3a"
    try database.write { try $0.run("INSERT INTO notes (text) VALUES (?)", secret) }
    try database.write { try $0.run("DELETE FROM notes") }
    #expect(SegmentEraser.checkpoint(database))
    _ = try PageCache.losePower(under: folder.path + "/")
    #expect(try Database.occurrences(of: Array(secret.utf8), inFilesAt: folder.database) == 0)
    #expect(try folder.rowsAfterReopening() == nil)
  }

  @Test func aFileOutsideTheTrackedPrefixIsUntouched() throws {
    let tracked = try Folder()
    let other = try Folder()
    PageCache.forget(other.path + "/")
    let database = try Database(.file(other.database), durability: .normal)
    try database.execute("CREATE TABLE t (n INTEGER NOT NULL)")
    try other.commit(2, to: database)
    _ = try PageCache.losePower(under: tracked.path + "/")
    // Still alive, and still holding what it wrote.
    try other.commit(1, to: database, from: 3)
    #expect(try database.query("SELECT n FROM t ORDER BY n") { $0.int(0) } == [1, 2, 3])
  }
}
