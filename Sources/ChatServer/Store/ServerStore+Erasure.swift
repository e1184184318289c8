import SQLite
import Support

/// A delete is real (API.md Part 2), on disk too: once a delete or an edit is stored, no byte
/// of the text it replaced stays in the database's files.
///
/// On SQLite the rows are rewritten in the write's own savepoint and `secure_delete` zeroes
/// what SQLite frees, but both search indexes keep a removed row's terms in their older
/// segments until those merge. Triggers count what is owed (migration `v8-erasure`), and after
/// a group commit that owes, a pass of `SegmentEraser` merges both indexes a step (64 pages,
/// a few milliseconds, one fsync) at a time, the batches of writes queued meanwhile running
/// between steps; then the write-ahead log is emptied. A pass covers every delete before it:
/// its cost is one rewrite of both indexes, however many deletes. A kill leaves the count in
/// the file, and the pass runs at the next start.
///
/// On PostgreSQL an UPDATE leaves the old row version (with its text) in the table's pages,
/// and its entries in the GIN indexes, until a VACUUM prunes them; `vacuumIfOwed()` (called by
/// `chat-server` every minute) vacuums the tables that deletes and edits touched on this node.
/// What VACUUM frees is marked reusable, not overwritten at once, and the write-ahead log's
/// segments keep the text until PostgreSQL recycles them after a checkpoint
/// (`docs/erasure.md`, "On PostgreSQL", gives the measured figures).
extension ServerStore {
  /// SQLite: starts a pass when something is owed and none runs.
  func eraseIfOwed() {
    guard erasing == nil, let database, (try? SegmentEraser.isOwed(database)) == true else {
      return
    }
    erasing = executor.spawn { await self.erase() }
  }

  /// Waits for the pass under way, if any (tests; a server about to stop).
  public func finishErasure() async {
    await erasing?.value
  }

  /// The statistics for `/metrics`, with whether a delete or an edit still waits for its
  /// pass (SQLite) or its VACUUM (PostgreSQL): for whoever must know the bytes are gone.
  func reportedStatistics() -> StoreStatistics {
    var reported = statistics
    if let database {
      reported.erasureOwed = erasing != nil || (try? SegmentEraser.isOwed(database)) == true
    } else {
      reported.erasureOwed = vacuumOwed
    }
    return reported
  }

  private func erase() async {
    defer { erasing = nil }
    while let database {
      do {
        guard try eraser.step(database) else { break }
      } catch {
        statistics.failedErasures += 1
        return
      }
      await Task.yield()
    }
    guard let database else { return }
    statistics.erasurePasses += 1
    if !SegmentEraser.checkpoint(database) { statistics.failedErasures += 1 }
  }

  /// PostgreSQL: a delete or an edit was stored; the next `vacuumIfOwed()` vacuums.
  func owesVacuum() {
    if case .postgres = backend { vacuumOwed = true }
  }

  /// PostgreSQL: VACUUMs the tables deletes and edits rewrote (messages, media uploads),
  /// when any was stored on this node since the last call. Returns whether it ran.
  @discardableResult
  public func vacuumIfOwed() async -> Bool {
    guard vacuumOwed, case .postgres(let pool) = backend else { return false }
    vacuumOwed = false
    do {
      try await pool.withConnection { connection in
        try connection.execute("VACUUM (SKIP_LOCKED) messages, media_uploads")
      }
      statistics.erasurePasses += 1
      return true
    } catch {
      vacuumOwed = true
      statistics.failedErasures += 1
      return false
    }
  }
}
