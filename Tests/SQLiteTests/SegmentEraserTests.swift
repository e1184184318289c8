import Foundation
import SQLite
import Testing

/// FTS5 keeps a removed row's terms in its older segments; `SegmentEraser` merges them away in
/// steps, and the checkpoint takes the log's copies. Checked the way an attacker would: the
/// bytes of the file, as `grep -a` reads them.
@Suite struct SegmentEraserTests {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "eraser-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  /// Markers in the scripts the two indexes handle: a Latin word (unicode61), CJK, Thai and
  /// emoji (trigram).
  static let markers = ["zqxvelmarker", "䨻䲜䶑", "ฃฅฆฌ", "🦩🪼"]

  /// A messages table with both indexes (as the device and the server have them), its
  /// erasure counter and triggers, and `filler` other rows committed in batches so the
  /// indexes hold several segments.
  func makeDatabase(_ name: String, filler: Int = 600) throws -> (Database, String) {
    let path = folder.appendingPathComponent(name).path
    let db = try Database(.file(path))
    try db.execute("PRAGMA secure_delete = ON")
    try db.execute(
      """
      CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE VIRTUAL TABLE words USING fts5(text, content = 'messages', content_rowid = 'id');
      CREATE VIRTUAL TABLE unspaced USING fts5(text, tokenize = 'trigram');
      CREATE TRIGGER messages_insert AFTER INSERT ON messages BEGIN
        INSERT INTO words (rowid, text) VALUES (new.id, new.text);
        INSERT INTO unspaced (rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER messages_delete AFTER DELETE ON messages BEGIN
        INSERT INTO words (words, rowid, text) VALUES ('delete', old.id, old.text);
        DELETE FROM unspaced WHERE rowid = old.id;
      END;
      CREATE TRIGGER messages_update AFTER UPDATE OF text ON messages BEGIN
        INSERT INTO words (words, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO words (rowid, text) VALUES (new.id, new.text);
        DELETE FROM unspaced WHERE rowid = old.id;
        INSERT INTO unspaced (rowid, text) VALUES (new.id, new.text);
      END;
      """ + SegmentEraser.schema
        + SegmentEraser.trigger(
          "messages_text_erased", after: "UPDATE OF text", on: "messages",
          when: "old.text != new.text")
        + SegmentEraser.trigger(
          "messages_erased", after: "DELETE", on: "messages", when: "old.text != ''"))
    for batch in stride(from: 0, to: filler, by: 50) {
      try db.write { db in
        for n in batch..<min(filler, batch + 50) {
          try db.run(
            "INSERT INTO messages (id, text) VALUES (?, ?)", n + 100,
            "filler \(n) 東京で会いましょう word\(n) 🚲")
        }
      }
    }
    return (db, path)
  }

  func found(_ path: String) -> [String] {
    Self.markers.filter { Database.occurrences(of: Array($0.utf8), inFilesAt: path) > 0 }
  }

  func eraser() -> SegmentEraser {
    SegmentEraser(indexes: ["words", "unspaced"], pagesPerStep: 4)
  }

  @Test func aDeletedRowLeavesItsTermsInTheSegmentsUntilAPassMergesThem() throws {
    let (db, path) = try makeDatabase("delete.sqlite")
    let text = "secret " + Self.markers.joined(separator: " ") + " X"
    try db.write { try $0.run("INSERT INTO messages (id, text) VALUES (1, ?)", text) }
    try db.write { try $0.run("DELETE FROM messages WHERE id = 1") }
    SegmentEraser.checkpoint(db)
    #expect(found(path) == Self.markers, "FTS5 alone keeps every marker in its segments")
    #expect(try SegmentEraser.isOwed(db))

    var eraser = eraser()
    let steps = try eraser.finish(db)
    SegmentEraser.checkpoint(db)
    #expect(found(path).isEmpty)
    #expect(steps > 2, "a pass is several short steps, not one rewrite")
    #expect(try !SegmentEraser.isOwed(db))
    #expect(try db.scalarInt("SELECT count(*) FROM words WHERE words MATCH 'word7'") == 1)
  }

  @Test func anEditedTextLeavesNoByteOfTheOldText() throws {
    let (db, path) = try makeDatabase("edit.sqlite")
    let text = "secret " + Self.markers.joined(separator: " ")
    try db.write { try $0.run("INSERT INTO messages (id, text) VALUES (1, ?)", text) }
    try db.write { try $0.run("UPDATE messages SET text = '䴔䴕䵷 Y' WHERE id = 1") }
    var eraser = eraser()
    try eraser.finish(db)
    SegmentEraser.checkpoint(db)
    #expect(found(path).isEmpty)
    #expect(Database.occurrences(of: Array("䴔䴕䵷".utf8), inFilesAt: path) > 0, "the new text")
  }

  @Test func onlyAChangedOrRemovedTextOwesAnErasure() throws {
    let (db, _) = try makeDatabase("owed.sqlite", filler: 0)
    try db.write { try $0.run("INSERT INTO messages (id, text) VALUES (1, 'a'), (2, '')") }
    #expect(try !SegmentEraser.isOwed(db), "an insert erases nothing")
    try db.write { try $0.run("UPDATE messages SET text = 'a' WHERE id = 1") }
    #expect(try !SegmentEraser.isOwed(db), "the same text again erases nothing")
    try db.write { try $0.run("DELETE FROM messages WHERE id = 2") }
    #expect(try !SegmentEraser.isOwed(db), "a row without text erases nothing")
    try db.write { try $0.run("UPDATE messages SET text = 'b' WHERE id = 1") }
    #expect(try SegmentEraser.isOwed(db))
  }

  /// A kill between the delete and its pass: the count is in the file, so the next process's
  /// eraser finds it owed and erases.
  @Test func whatIsOwedOutlivesTheProcess() throws {
    var (db, path) = try makeDatabase("kill.sqlite")
    try db.write { try $0.run("INSERT INTO messages (id, text) VALUES (1, ?)", Self.markers[1]) }
    try db.write { try $0.run("DELETE FROM messages WHERE id = 1") }
    db.close()
    db = try Database(.file(path))
    try db.execute("PRAGMA secure_delete = ON")
    #expect(try SegmentEraser.isOwed(db))
    var eraser = eraser()
    try eraser.finish(db)
    SegmentEraser.checkpoint(db)
    #expect(found(path).isEmpty)
  }

  /// A change during a pass is left to the next pass, which the last step of this one starts.
  @Test func aChangeDuringAPassIsErasedByTheNextOne() throws {
    let (db, path) = try makeDatabase("during.sqlite")
    try db.write {
      try $0.run("INSERT INTO messages (id, text) VALUES (1, ?), (2, ?)", "early 䨻䲜䶑", "late ฃฅฆฌ")
    }
    try db.write { try $0.run("DELETE FROM messages WHERE id = 1") }
    var eraser = eraser()
    #expect(try eraser.step(db), "a pass has started")
    try db.write { try $0.run("DELETE FROM messages WHERE id = 2") }
    try eraser.finish(db)
    SegmentEraser.checkpoint(db)
    #expect(found(path).isEmpty)
    #expect(try !SegmentEraser.isOwed(db))
  }

  /// A b-tree rebalance copies cells into a rebuilt page and leaves what was there before in its
  /// free space; `secure_delete` zeroes freed pages and dropped cells, not that (release seed 35
  /// of the simulation: a deleted text's trigrams in a leaf page of the trigram index, in no
  /// row). After a pass, every page of the index tables has nothing but zeros in its free space.
  @Test func aPassLeavesNoStaleBytesInTheFreeSpaceOfAnIndexPage() throws {
    let (db, path) = try makeDatabase("rebalance.sqlite", filler: 1500)
    try db.write { db in
      for n in stride(from: 100, to: 1600, by: 7) {
        try db.run("UPDATE messages SET text = ? WHERE id = ?", "edited \(n) 🦩", n)
      }
    }
    try db.write { try $0.run("DELETE FROM messages WHERE id % 5 = 0") }
    let tables = ["words_data", "words_idx", "unspaced_data", "unspaced_idx", "unspaced_content"]
    var eraser = eraser()
    try eraser.finish(db)
    SegmentEraser.checkpoint(db)
    #expect(try Self.pagesWithStaleFreeSpace(of: tables, in: db, at: path).isEmpty)
    #expect(try db.scalarInt("SELECT count(*) FROM words WHERE words MATCH 'word1'") == 1)
    let kept = try db.scalarInt("SELECT count(*) FROM messages WHERE text LIKE '%会いま%'")
    #expect(kept == 1028, "1,500 rows, 215 edited, 257 others deleted")
    #expect(try db.scalarInt("SELECT count(*) FROM unspaced WHERE text MATCH '会いま'") == kept)
    #expect(try db.query("PRAGMA integrity_check") { $0.string(0) } == ["ok"])
  }

  /// The b-tree pages of `tables` (from `dbstat`) whose unallocated space, between the cell
  /// pointers and the cell content, holds a byte other than zero: read from the file as it is
  /// on disk (after a checkpoint), the way an attacker would.
  static func pagesWithStaleFreeSpace(of tables: [String], in db: Database, at path: String) throws
    -> [Int]
  {
    let pageSize = try db.scalarInt("PRAGMA page_size") ?? 4096
    let placeholders = tables.map { _ in "?" }.joined(separator: ", ")
    let pages = try db.query(
      "SELECT pageno FROM dbstat WHERE name IN (\(placeholders)) AND pagetype != 'overflow'",
      values: tables
    ) { $0.int(0) }
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return pages.filter { page in
      let start = (page - 1) * pageSize
      let header = start + (page == 1 ? 100 : 0)
      let interior = file[header] == 2 || file[header] == 5
      let cells = Int(file[header + 3]) << 8 | Int(file[header + 4])
      let contentStart = Int(file[header + 5]) << 8 | Int(file[header + 6])
      let free =
        header + (interior ? 12 : 8) + 2 * cells..<start
        + (contentStart == 0 ? 65536 : contentStart)
      return file[free].contains { $0 != 0 }
    }
  }
}
