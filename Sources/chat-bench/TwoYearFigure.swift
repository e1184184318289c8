import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// B15: a database two years old (5,000,000 messages, one large conversation among about 4,900
/// small ones, sent over 730 days): B2's open and B3's searches on it, next to raw C as there,
/// then pruning it to a one-year window as `ChatEngine.maintain` does, 500 items a transaction,
/// next to the same DELETE run by C on a copy, and the tidy-up after.
///
/// The rows are written by the raw C loop into the store's schema (B1 measures the store's own
/// ingest; writing 5,000,000 rows through it would only make this figure slower to build), and
/// the conversations are then marked synced and read up to their newest message, as catch-ups
/// and reading leave them, so the window by age is what bounds pruning.
enum TwoYearFigure {
  struct Counts {
    var layout: StorageLayout
    var open: OpenFigure.Counts
    var searches: Int
    /// Items pruned on each side at most (the one-year window would prune about half).
    var pruneItems: Int

    static let full = Counts(
      layout: .twoYears,
      open: OpenFigure.Counts(queries: 2_000, opens: 1_000, freshProcesses: 20, coldProcesses: 5),
      searches: 200, pruneItems: 1_000_000)
    static let quick = Counts(
      layout: .twoYearsQuick, open: .quick, searches: 100, pruneItems: 10_000)
  }

  static func run(folder: String, counts: Counts) async throws -> [ResultRow] {
    let layout = counts.layout
    let (fixture, buildRow) = try await build(layout: layout, folder: folder)
    var rows = [buildRow]
    rows += try await OpenFigure.run(fixture, counts: counts.open)
    rows += try await SearchFigure.run(fixture, samples: counts.searches)
    rows += try await prune(fixture, upTo: counts.pruneItems)
    return rows.map { row in
      var row = row
      row.figure = "B15"
      return row
    }
  }

  /// Writes every page with the raw C loop into a database the store created and migrated.
  static func build(layout: StorageLayout, folder: String) async throws -> (
    StorageFixture, ResultRow
  ) {
    let storePath = folder + "/two-years.sqlite"
    let me = UserID("me")
    let store = try await BenchmarkStore.open(
      .file(storePath), executor: ThreadExecutor(name: "bench.two-years"))
    try await store.saveSession(user: me, device: DeviceID("phone"))
    var source = PageSource(layout: layout, me: me)
    try await source.saveConversations(in: store)
    let raw = try RawDatabase(path: storePath)
    defer { raw.close() }
    var times = Samples()
    let started = Nanos.now()
    let reportEvery = max(1, source.pageCount / 20)
    for index in 0..<source.pageCount {
      times.add(try RawRows(source.page(index)).insert(into: raw))
      if (index + 1) % reportEvery == 0 {
        progress(
          "B15: \(Report.grouped(source.written)) messages written, "
            + "\(Report.grouped(IngestFigure.rate(times, layout.pageSize)))/s (median)")
      }
    }
    try raw.exec(
      """
      UPDATE conversations SET last_sequence = coalesce(
        (SELECT max(sequence) FROM messages WHERE conversation_id = conversations.id), 0);
      UPDATE conversations SET synced_up_to = last_sequence, read_up_to = last_sequence;
      PRAGMA optimize;
      PRAGMA wal_checkpoint(TRUNCATE);
      """)
    let elapsed = Nanos.seconds(Nanos.now() - started)
    let megabytes = fileMegabytes(storePath)
    progress("B15: \(Report.grouped(source.written)) messages, \(Int(megabytes)) MB")
    var row = ResultRow(
      figure: "B15", name: "the database: size on disk",
      workload: "\(Report.grouped(layout.totalMessages)) msgs over 730 days, both search indexes",
      unit: .megabytes, median: megabytes, p99: nil, samples: 1, target: "",
      note: "written by the raw C loop into the store's schema, 1,000 rows a transaction")
    row.details = [
      "buildSeconds": elapsed,
      "rawRowsPerSecondMedian": Double(IngestFigure.rate(times, layout.pageSize)),
      "conversations": Double(layout.smallConversations + 1),
    ]
    return (source.fixture(folder: folder, storePath: storePath, store: store), row)
  }

  /// Prunes to one year, conversation by conversation in the engine's transactions, next to
  /// the same DELETE in C on a copy of the file taken before; then tidies the store's file.
  static func prune(_ fixture: StorageFixture, upTo limit: Int) async throws -> [ResultRow] {
    let layout = fixture.layout
    let copyPath = fixture.folder + "/two-years-raw.sqlite"
    // Everything in the main file first: the copy takes that file alone.
    let checkpoint = try RawDatabase(path: fixture.storePath)
    try checkpoint.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpoint.close()
    try FileManager.default.copyItem(atPath: fixture.storePath, toPath: copyPath)
    defer { try? FileManager.default.removeItem(atPath: copyPath) }
    let copy = try RawDatabase(path: copyPath)
    defer { copy.close() }
    let statement = try copy.prepare(BenchmarkStore.pruneSQL)
    let store = fixture.store
    let batch = BenchmarkStore.pruneBatch
    let now = PageSource.created.addingTimeInterval(
      Double(layout.totalMessages) * layout.secondsPerMessage)

    let planStarted = Nanos.now()
    let targets = try await store.pruneTargets(Retention(messageDays: 365), now: now)
    let plan = Nanos.now() - planStarted
    progress("B15: pruning plan \(plan / 1_000_000) ms, \(targets.count) conversations")

    let (storeTimes, rawTimes, pruned, conversations) = try await onExecutor(store.executor) {
      var storeTimes = Samples()
      var rawTimes = Samples()
      var pruned = 0
      var conversations = 0
      for target in targets where pruned < limit {
        conversations += 1
        while pruned < limit {
          let started = Nanos.now()
          let deleted = try await store.pruneStep(
            target.conversation, floor: target.floor, batch: batch)
          let elapsed = Nanos.now() - started
          let (result, rawElapsed) = copy.query(
            statement,
            [.text(target.conversation.rawValue), .integer(target.floor), .integer(batch)])
          guard result >= 0, copy.changes == deleted else {
            throw BenchError(
              "prune: the store deleted \(deleted), C \(copy.changes): \(copy.error)")
          }
          pruned += deleted
          // Full transactions only: a conversation's last one is smaller on both sides.
          if deleted == batch {
            storeTimes.add(elapsed)
            rawTimes.add(rawElapsed)
          }
          guard deleted == batch else { break }
        }
      }
      return (storeTimes, rawTimes, pruned, conversations)
    }
    let before = fileMegabytes(fixture.storePath)
    let tidyStarted = Nanos.now()
    let freedPages = try await store.tidy()
    let tidy = Nanos.now() - tidyStarted
    progress(
      "B15: pruned \(Report.grouped(pruned)) items in \(conversations) conversations; "
        + "tidy \(tidy / 1_000_000) ms, \(freedPages) pages freed")

    var row = ResultRow.latency(
      "B15", "prune: one \(batch)-item transaction",
      workload: "a 365-day window, \(Report.grouped(pruned)) items in \(conversations) "
        + "conversations", samples: storeTimes, baselineName: "raw C", baseline: rawTimes,
      target: "",
      note: "MessageStore.pruneStep (the floor saved, the DELETE, the search indexes' triggers) "
        + "next to the same DELETE in C on a copy")
    row.details = [
      "planMs": Double(plan) / 1e6,
      "planConversations": Double(targets.count),
      "itemsPerSecondStore": Double(batch) / Nanos.seconds(max(1, storeTimes.median)),
      "itemsPerSecondRaw": Double(batch) / Nanos.seconds(max(1, rawTimes.median)),
      "tidyMs": Double(tidy) / 1e6,
      "freedPages": Double(freedPages),
      "sizeBeforeTidyMB": before,
      "sizeAfterTidyMB": fileMegabytes(fixture.storePath),
    ]
    return [row]
  }

  static func fileMegabytes(_ path: String) -> Double {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return Double((attributes?[.size] as? NSNumber)?.int64Value ?? 0) / 1e6
  }
}
