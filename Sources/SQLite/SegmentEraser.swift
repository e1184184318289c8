import CSQLite

/// Takes the old text that deletes and edits left behind out of FTS5 indexes, in short steps.
///
/// A row that leaves an FTS5 index does not leave its pages: FTS5 writes a "delete key" into a
/// new segment and keeps the row's terms in the older one (on disk, readable with `grep`) until
/// a merge takes both segments into one. SQLite 3.40 (Debian 12) has no FTS5 `secure-delete`
/// (3.44 added it), and a full merge at once (`'optimize'`) rewrites the whole index under the
/// writer's lock: 187 ms for both indexes of 100,000 messages, seconds for millions
/// (`docs/performance/fts-erasure.log`). So a pass merges every
/// segment incrementally: `'merge'` with `-pagesPerStep` starts a merge of all segments,
/// `'merge'` with `pagesPerStep` carries it on, each step a statement of its own (its own
/// short transaction, so other writes run between steps), until a step does no work. Pages
/// the merge frees are zeroed when the database runs with `secure_delete`; what the write-ahead
/// log still holds goes with the checkpoint the owner runs after a pass (`checkpoint`).
///
/// Merging is not enough: a b-tree rebalance copies cells into a rebuilt page and leaves what
/// the page held before in its free space, which `secure_delete` does not zero (only freed
/// pages and dropped cells); release seed 35 of the simulation found a deleted text's trigrams
/// there, in no row. So a pass ends by writing each table of the indexes anew (`rewrite`),
/// one table a step: its rows copied aside, the table emptied (every page freed, so zeroed),
/// the rows put back into fresh pages.
///
/// What is owed lives in the database, in the one-row table `erasure (owed, erased)`: the
/// owner's triggers raise `owed` whenever a row's text changes, a row with text goes, or other
/// content is blanked (`trigger(_:after:on:when:)`), so no code path can forget it and a kill
/// loses nothing. A pass
/// erases what was owed when it started; a change during the pass is left to the next one.
public struct SegmentEraser {
  /// The FTS5 tables, by name, merged one after the other in each pass.
  public let indexes: [String]
  /// Leaf pages one step writes at most (about 4 KiB each).
  public let pagesPerStep: Int
  private var pass: Pass?

  private struct Pass {
    /// `owed` when the pass started: what it erases.
    var target: Int
    var index = 0
    var started = false
    /// The indexes' tables still to write anew, once every index is merged.
    var rewrites: [String]?
  }

  public init(indexes: [String], pagesPerStep: Int = 64) {
    precondition(pagesPerStep > 0)
    self.indexes = indexes
    self.pagesPerStep = pagesPerStep
  }

  /// The table that counts what is owed, for a migration (one row, nothing owed).
  public static let schema = """
    CREATE TABLE erasure (owed INTEGER NOT NULL, erased INTEGER NOT NULL);
    INSERT INTO erasure (owed, erased) VALUES (0, 0);
    """

  /// A trigger that owes a pass when `event` (`UPDATE OF text`, `DELETE`) on `table` erases
  /// what `condition` says (in the trigger's `old` and `new`): for a migration, after `schema`.
  /// A pass merges the indexes and then empties the log, so any erased content, indexed or not
  /// (a file name in a column), leaves the file's old pages too.
  public static func trigger(
    _ name: String, after event: String, on table: String, when condition: String
  ) -> String {
    """
    CREATE TRIGGER \(name) AFTER \(event) ON \(table) WHEN \(condition) BEGIN
      UPDATE erasure SET owed = owed + 1;
    END;
    """
  }

  /// Whether anything is owed.
  public static func isOwed(_ db: Database) throws -> Bool {
    try db.scalarInt("SELECT owed > erased FROM erasure") == 1
  }

  /// Does one step of the pass, starting one when something is owed. Returns false when
  /// nothing is owed any more (the pass that finished took care of it, or none was needed);
  /// then the owner empties the write-ahead log. Never call it inside a transaction of one's
  /// own: each step commits by itself.
  public mutating func step(_ db: Database) throws -> Bool {
    if pass == nil {
      guard let owed = try db.scalarInt("SELECT owed FROM erasure WHERE owed > erased") else {
        return false
      }
      pass = Pass(target: owed)
    }
    guard var current = pass else { return false }
    guard current.index < indexes.count else { return try rewriteStep(db, current) }
    let index = indexes[current.index]
    let before = sqlite3_total_changes64(db.handle)
    try db.run(
      "INSERT INTO \(index) (\(index), rank) VALUES ('merge', ?)",
      current.started ? pagesPerStep : -pagesPerStep)
    current.started = true
    // SQLite's documented test for a merge that did nothing: fewer than two changes.
    if sqlite3_total_changes64(db.handle) - before < 2 {
      current.index += 1
      current.started = false
    }
    pass = current
    return true
  }

  /// After the merges: writes one of the indexes' tables anew, or ends the pass when none is
  /// left.
  private mutating func rewriteStep(_ db: Database, _ current: Pass) throws -> Bool {
    var current = current
    var rewrites = try current.rewrites ?? tables(db)
    if let table = rewrites.popLast() {
      try Self.rewrite(table, in: db)
      current.rewrites = rewrites
      pass = current
      return true
    }
    pass = nil
    try db.run("UPDATE erasure SET erased = max(erased, ?)", current.target)
    return try Self.isOwed(db)
  }

  /// The tables that hold the indexes' terms and texts: each one's segments (`_data`), their
  /// first terms (`_idx`) and, when it keeps its own copy of the text, `_content`.
  private func tables(_ db: Database) throws -> [String] {
    try indexes.flatMap { index in
      try ["_data", "_idx", "_content"].map { index + $0 }.filter {
        try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = ?", $0) == 1
      }
    }
  }

  /// Writes `table` anew in one transaction: its rows copied into a temporary table, the table
  /// emptied (SQLite frees every page, zeroed under `secure_delete`, and zeroes the root), the
  /// rows inserted back in key order into pages that were zero. No page of it keeps free space
  /// a rebalance left, so no stale copy of a cell that has since gone. About as costly as the
  /// table's size (docs/erasure.md has the figures).
  static func rewrite(_ table: String, in db: Database) throws {
    try db.write { db in
      try db.execute(
        """
        CREATE TEMP TABLE segment_eraser_copy AS SELECT * FROM main.\(table);
        DELETE FROM main.\(table);
        INSERT INTO main.\(table) SELECT * FROM temp.segment_eraser_copy;
        DROP TABLE temp.segment_eraser_copy;
        """)
    }
  }

  /// Runs steps until nothing is owed (tests, a tool that is about to exit). Returns the steps.
  @discardableResult
  public mutating func finish(_ db: Database) throws -> Int {
    var steps = 0
    while try step(db) { steps += 1 }
    return steps
  }

  /// Folds the write-ahead log into the database file and truncates it, so the old page images
  /// that held an erased text are gone from the log too. Needs no transaction open and no
  /// reader holding an older snapshot; returns false when it could not complete (the next
  /// pass tries again).
  ///
  /// The truncated log is synced: SQLite does not sync a truncation, and a power loss before
  /// the log's next sync would give it its old pages back, the erased text with them (the
  /// simulation's power losses found it).
  @discardableResult
  public static func checkpoint(_ db: Database) -> Bool {
    guard !db.isInTransaction else { return false }
    var logFrames: Int32 = 0
    var checkpointed: Int32 = 0
    let code = sqlite3_wal_checkpoint_v2(
      db.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &checkpointed)
    guard code == SQLITE_OK else { return false }
    var log: UnsafeMutablePointer<sqlite3_file>?
    guard sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log) == SQLITE_OK,
      let log, let methods = log.pointee.pMethods
    else { return true }
    return methods.pointee.xSync(log, SQLITE_SYNC_NORMAL) == SQLITE_OK
  }
}
