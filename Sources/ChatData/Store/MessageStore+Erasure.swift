import SQLite

/// A delete is real (API.md Part 2): once a delete or an edit is applied, no byte of the text
/// it replaced stays in the file. The rows are rewritten in the change's own transaction, and
/// `secure_delete` zeroes what SQLite frees; but the search indexes keep a removed row's terms
/// in their older segments until those are merged, so a pass of `SegmentEraser` merges them,
/// a step (64 pages, a few milliseconds) at a time between the engine's other work, and then
/// empties the write-ahead log, whose old page images held the text too
/// (`StoreUpkeep.eraseStep`).
///
/// What is owed is counted by triggers in the database (migration `v10-erasure`), so a kill
/// between a delete and its pass loses nothing: the pass runs at the next open. `close()`
/// finishes a pass under way, so a command-line tool leaves nothing behind either.
///
/// Cost: a pass rewrites both indexes once, however many deletes it covers: 152 ms of work on
/// 100,000 messages, in 21 steps of at most 19 ms that the sends and catch-ups interleave with
/// (`docs/performance/fts-erasure.log`).
extension MessageStore {
  /// Starts a pass when something is owed and none runs (after every write, and at open).
  func eraseIfOwed() {
    guard erasing == nil, (try? SegmentEraser.isOwed(db)) == true else { return }
    erasing = executor.spawn { await self.erase() }
  }

  /// Waits for the pass under way, if any.
  func finishErasure() async {
    await erasing?.value
  }

  /// Steps until nothing is owed, yielding between steps. A step that fails ends the pass:
  /// what is owed stays counted, and the next write starts it again.
  private func erase() async {
    while (try? StoreUpkeep.eraseStep(&eraser, knownBugs: knownBugs, db: db)) == true {
      await Task.yield()
    }
    sweepFreeSpace()
    erasing = nil
  }

  /// At open: a pass owed from an earlier launch ends with `VACUUM` (`sweepFreeSpace`).
  func owedAtOpen() {
    vacuumOwed = (try? SegmentEraser.isOwed(db)) == true
    eraseIfOwed()
  }
}
