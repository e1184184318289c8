import Foundation
import SQLite

/// The last step of an erasure pass (`MessageStore+Erasure.swift`): the free space of the
/// table pages. A b-tree rebalance copies cells into a rebuilt page and leaves what the page
/// held before in its unallocated space, which `secure_delete` does not zero; the index tables
/// are written anew by the pass, but writing `messages` anew after every delete would rewrite
/// the database. So the texts a delete or an edit replaced are kept, in memory only (a
/// `TEMP` table with `temp_store = MEMORY`, filled by `TEMP` triggers on the writer's own
/// connection), until the pass ends; then the file is read once and each text's last bytes are
/// looked for, and only when one is found does the pass end with `VACUUM`, whose copy of the
/// database leaves no free space behind (simulation seeds 438 and 549). A kill between a
/// change and its pass loses what memory held: a pass owed at open ends with `VACUUM` once.
///
/// Cost: one read of the database file per pass (a pass covers every change made while it
/// waited); a `VACUUM` (a copy of the database) in the rare pass that finds a stale copy, or
/// when a text replaced lives on in another row (a forward of a deleted message).
enum ReplacedTexts {
  /// How many of a text's last bytes are looked for: enough to be the text's own (the
  /// simulation's markers are its last characters), few enough to survive a cell cut short.
  static let tailBytes = 12

  /// Creates the in-memory table and the triggers that fill it, on the writer's connection.
  static func install(_ db: Database) throws {
    try db.execute(
      """
      PRAGMA temp_store = MEMORY;
      CREATE TEMP TABLE IF NOT EXISTS replaced_texts (text TEXT NOT NULL);
      CREATE TEMP TRIGGER IF NOT EXISTS replaced_texts_on_update
        AFTER UPDATE OF text ON main.messages
        WHEN old.text != '' AND new.text IS NOT old.text
        BEGIN INSERT INTO replaced_texts (text) VALUES (old.text); END;
      """)
  }

  /// The texts replaced since the last call, forgotten as they are returned.
  static func take(_ db: Database) throws -> [String] {
    let texts = try db.query("SELECT text FROM temp.replaced_texts") { $0.string(0) }
    if !texts.isEmpty { try db.execute("DELETE FROM temp.replaced_texts") }
    return texts
  }

  /// Whether the file at `path` holds the last bytes of any of `texts`.
  static func fileHolds(_ texts: [String], path: String) -> Bool {
    let tails = Set(texts.map { Data($0.utf8.suffix(tailBytes)) }.filter { !$0.isEmpty })
    guard !tails.isEmpty,
      let file = FileManager.default.contents(atPath: path)
    else { return false }
    return tails.contains { file.range(of: $0) != nil }
  }
}

extension MessageStore {
  /// Ends an erasure pass: `VACUUM` when a replaced text's bytes are still in the file, or
  /// when the pass was owed at open (what memory held was lost). Outside any transaction.
  func sweepFreeSpace() {
    let texts = (try? ReplacedTexts.take(db)) ?? []
    guard let path = databasePath, !knownBugs.contains(.eraseLeavesIndexSegments) else { return }
    guard vacuumOwed || ReplacedTexts.fileHolds(texts, path: path) else { return }
    vacuumOwed = false
    do {
      try db.execute("VACUUM")
      vacuums += 1
    } catch {
      // Left for the next pass: the texts are gone from memory, so the next open's does it.
      return
    }
    _ = SegmentEraser.checkpoint(db)
  }
}
