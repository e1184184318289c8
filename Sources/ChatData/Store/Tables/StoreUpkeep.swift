import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// What pruning asks of one conversation: items below `floor` go.
package struct PruneTarget: Sendable, Equatable {
  package var conversation: ConversationID
  package var floor: Int

  package init(conversation: ConversationID, floor: Int) {
    self.conversation = conversation
    self.floor = floor
  }
}

/// The database's upkeep, off the hot path: retention (pruning old items, expiring old media's
/// bytes), the erasure of deleted text from the search indexes' pages, tidying the file, and
/// the health `chat doctor` reports.
package enum StoreUpkeep {
  // MARK: - Retention

  /// The conversations `retention` prunes at `now`, each with the lowest sequence it keeps.
  ///
  /// A floor is the stricter of the window by age (the first item sent at or after `now`
  /// less the days) and by count (the `messagesPerConversation`-th newest message), but never
  /// above the newest message (the list's row), my read position + 1 (unread items stay), or
  /// what the conversation has synced (the held range stays one range). Only conversations
  /// with held items below their floor are returned, so a second call after pruning is empty.
  static func pruneTargets(_ retention: Retention, now: Date, db: Database) throws
    -> [PruneTarget]
  {
    guard retention.prunesMessages else { return [] }
    let conversations = try db.query(
      "SELECT id, read_up_to, synced_up_to, coalesce(history_floor, 1) FROM conversations"
    ) { ($0.string(0), $0.int(1), $0.optionalInt(2), $0.int(3)) }
    var targets: [PruneTarget] = []
    for (id, readUpTo, syncedUpTo, historyFloor) in conversations {
      guard let syncedUpTo,
        let newest = try db.scalarInt(
          """
          SELECT max(sequence) FROM messages
          WHERE conversation_id = ? AND kind = 'message' AND sequence IS NOT NULL
          """, id)
      else { continue }
      var floor = historyFloor
      if let days = retention.messageDays {
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400).timeIntervalSince1970
        let first = try db.scalarInt(
          """
          SELECT min(sequence) FROM messages
          WHERE conversation_id = ? AND sequence IS NOT NULL AND sent_at >= ?
          """, id, cutoff)
        floor = max(floor, first ?? newest)
      }
      if let count = retention.messagesPerConversation,
        let kept = try db.scalarInt(
          """
          SELECT sequence FROM messages
          WHERE conversation_id = ? AND kind = 'message' AND sequence IS NOT NULL
          ORDER BY sequence DESC LIMIT 1 OFFSET ?
          """, id, count - 1)
      {
        floor = max(floor, kept)
      }
      floor = min(floor, newest, readUpTo + 1, syncedUpTo)
      floor = max(floor, historyFloor)
      let below = try db.scalarInt(
        "SELECT count(*) FROM messages WHERE conversation_id = ? AND sequence < ?", id, floor)
      if (below ?? 0) > 0, let conversation = ConversationID(rawValue: id) {
        targets.append(PruneTarget(conversation: conversation, floor: floor))
      }
    }
    return targets
  }

  /// One small transaction of pruning: the conversation's history now begins at `floor`
  /// (paging back asks the server), and up to `batch` held items below it are deleted, oldest
  /// first (the search indexes follow through their triggers; media files no row names are
  /// swept after the commit). Unsent rows have no sequence and are never below a floor.
  /// Returns how many items it deleted: fewer than `batch` when the conversation is done.
  static func pruneStep(_ target: PruneTarget, batch: Int, tx: StoreTransaction) throws -> Int {
    try tx.db.run(
      """
      UPDATE conversations SET history_floor = ?
      WHERE id = ? AND coalesce(history_floor, 1) < ?
      """, target.floor, target.conversation.rawValue, target.floor)
    try tx.db.run(pruneSQL, target.conversation.rawValue, target.floor, batch)
    let deleted = tx.db.changes
    if deleted > 0 {
      tx.touch(target.conversation)
      tx.releaseMedia()
    }
    return deleted
  }

  /// The delete of one pruning transaction: up to `?` (batch) held items of conversation `?`
  /// below `?` (its floor), oldest first.
  package static let pruneSQL = """
    DELETE FROM messages WHERE id IN (
      SELECT id FROM messages WHERE conversation_id = ? AND sequence < ?
      ORDER BY sequence LIMIT ?)
    """

  /// Whether some conversation's history here does not reach its first item: pruned, paged
  /// back only so far, or never fetched (a local search may miss older matches).
  static func holdsPartialHistory(db: Database) throws -> Bool {
    try db.scalarInt(
      """
      SELECT EXISTS (SELECT 1 FROM conversations WHERE coalesce(history_floor, 1) > 1
        OR (synced_up_to IS NULL AND last_sequence > 0))
      """) == 1
  }

  /// Downloaded media of messages sent before `cutoff` loses its bytes (the row, with its
  /// thumbnail, stays; my unsent messages' files are their only copy and stay): the sweep
  /// after the commit deletes the files. Returns how many.
  static func expireMedia(sentBefore cutoff: Date, tx: StoreTransaction) throws -> Int {
    let conversations = try tx.db.query(
      """
      UPDATE messages SET media_file = NULL
      WHERE media_file IS NOT NULL AND sequence IS NOT NULL AND sent_at < ?
      RETURNING conversation_id, media_file
      """, cutoff.timeIntervalSince1970
    ) { $0.string(0) }
    tx.touch(conversations)
    if !conversations.isEmpty { tx.releaseMedia() }
    return conversations.count
  }

  // MARK: - Erasure

  /// One step of the erasure pass (`MessageStore+Erasure.swift`): merges up to 64 pages of
  /// the search indexes' segments, so the terms of deleted and replaced text leave the file.
  /// Returns true while more is owed; the last step empties the write-ahead log, whose old
  /// page images held the text too. What is owed is counted by triggers (`v10-erasure`).
  static func eraseStep(
    _ eraser: inout SegmentEraser, knownBugs: KnownBugs, db: Database
  ) throws -> Bool {
    let more =
      knownBugs.contains(.eraseLeavesIndexSegments)
      ? try forgetOwed(db) : try eraser.step(db)
    if !more { SegmentEraser.checkpoint(db) }
    return more
  }

  /// `KnownBugs.eraseLeavesIndexSegments`: calls what is owed erased without merging.
  private static func forgetOwed(_ db: Database) throws -> Bool {
    try db.run("UPDATE erasure SET erased = owed")
    return false
  }

  // MARK: - Tidying and health

  /// `PRAGMA optimize` (statistics for the query planner, cheap when nothing changed), the
  /// pages pruning freed given back to the file system (`incremental_vacuum`, on a database
  /// made with `auto_vacuum = INCREMENTAL`), and the write-ahead log folded into the file and
  /// truncated so it does not grow without bound. Outside any transaction. Returns the pages
  /// given back.
  static func tidy(db: Database) throws -> Int {
    try db.execute("PRAGMA optimize")
    var freed = 0
    if try db.scalarInt("PRAGMA auto_vacuum") == 2 {
      let before = try db.scalarInt("PRAGMA freelist_count") ?? 0
      try db.execute("PRAGMA incremental_vacuum")
      freed = before - (try db.scalarInt("PRAGMA freelist_count") ?? 0)
    }
    SegmentEraser.checkpoint(db)
    return freed
  }

  /// What `chat doctor` reports: sizes, counts, the schema, and SQLite's and FTS5's own
  /// checks (`integrity_check` reads every page: seconds on a large file).
  static func health(db: Database) throws -> DatabaseHealth {
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
