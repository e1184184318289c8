import SQLite
import Support

/// A delete is real (API.md Part 2), on disk too: once a delete or an edit is stored, no byte
/// of the text it replaced stays in the database's files.
///
/// The rows are rewritten in the write's own savepoint and `secure_delete` zeroes
/// what SQLite frees, but both search indexes keep a removed row's terms in their older
/// segments until those merge. Triggers count what is owed (migration `v8-erasure`), and after
/// a group commit that owes, a pass of `SegmentEraser` merges both indexes a step (64 pages,
/// a few milliseconds, one fsync) at a time, the batches of writes queued meanwhile running
/// between steps; then the write-ahead log is emptied. A pass covers every delete before it:
/// its cost is one rewrite of both indexes, however many deletes. A kill leaves the count in
/// the file, and the pass runs at the next start. (PostgreSQL's side: `PostgresStoreBackend`.)
extension SQLiteStoreBackend {
  /// Starts a pass when something is owed and none runs.
  func eraseIfOwed() {
    guard erasing == nil, (try? SegmentEraser.isOwed(database)) == true else {
      return
    }
    erasing = executor.spawn { await self.erase() }
  }

  /// Waits for the pass under way, if any (tests; a server about to stop).
  func finishErasure() async {
    await erasing?.value
  }

  /// The statistics for `/metrics`, with whether a delete or an edit still waits for its
  /// pass: for whoever must know the bytes are gone.
  func statistics() -> StoreStatistics {
    var reported = counts
    reported.erasureOwed = erasing != nil || (try? SegmentEraser.isOwed(database)) == true
    return reported
  }

  private func erase() async {
    defer { erasing = nil }
    while true {
      do {
        guard try eraser.step(database) else { break }
      } catch {
        counts.failedErasures += 1
        return
      }
      await Task.yield()
    }
    counts.erasurePasses += 1
    if !SegmentEraser.checkpoint(database) { counts.failedErasures += 1 }
  }
}
