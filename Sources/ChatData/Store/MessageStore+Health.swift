import ChatDomain
import Foundation
import SQLite

extension MessageStore {
  /// The database's upkeep, off the hot path: `PRAGMA optimize` (statistics for the query
  /// planner, cheap when nothing changed), the pages pruning freed given back to the file
  /// system (`incremental_vacuum`, on a database made with `auto_vacuum = INCREMENTAL`), and
  /// the write-ahead log folded into the file and truncated so it does not grow without
  /// bound. Returns the pages given back.
  func tidy() throws(StoreError) -> Int {
    do {
      try db.execute("PRAGMA optimize")
      var freed = 0
      if try db.scalarInt("PRAGMA auto_vacuum") == 2 {
        let before = try db.scalarInt("PRAGMA freelist_count") ?? 0
        try db.execute("PRAGMA incremental_vacuum")
        freed = before - (try db.scalarInt("PRAGMA freelist_count") ?? 0)
      }
      SegmentEraser.checkpoint(db)
      return freed
    } catch {
      throw StoreError(error)
    }
  }

  /// What `chat doctor` reports: sizes, counts, the schema, and SQLite's and FTS5's own
  /// checks (`integrity_check` reads every page: seconds on a large file).
  func health() throws(StoreError) -> DatabaseHealth {
    try read { db in
      func count(_ sql: String) throws -> Int { try db.scalarInt(sql) ?? 0 }
      var problems = try db.query("PRAGMA integrity_check") { $0.string(0) }.filter { $0 != "ok" }
      for index in ["message_search", "message_search_unspaced"] {
        do {
          try db.run("INSERT INTO \(index) (\(index)) VALUES ('integrity-check')")
        } catch {
          problems.append("\(index): \(error)")
        }
      }
      let modes = [0: "none", 1: "full", 2: "incremental"]
      return DatabaseHealth(
        schema: try Migrator.appliedIdentifiers(in: db),
        pageSize: try count("PRAGMA page_size"), pages: try count("PRAGMA page_count"),
        freePages: try count("PRAGMA freelist_count"),
        autoVacuum: modes[try count("PRAGMA auto_vacuum")] ?? "?",
        conversations: try count("SELECT count(*) FROM conversations"),
        messages: try count("SELECT count(*) FROM messages WHERE kind = 'message'"),
        items: try count("SELECT count(*) FROM messages"),
        unsent: try count("SELECT count(*) FROM messages WHERE outbox_position IS NOT NULL"),
        mediaFiles: try count(
          "SELECT count(*) FROM messages INDEXED BY messages_media_files WHERE media_file IS NOT NULL"
        ),
        prunedConversations: try count(
          "SELECT count(*) FROM conversations WHERE coalesce(history_floor, 1) > 1"),
        problems: problems)
    }
  }
}
