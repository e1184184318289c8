import CBenchBaseline
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// The client database the storage figures share: built by B1's ingest, then opened by B2, B3
/// and B10. One large conversation among many small ones, written page by page as a catch-up
/// writes it, the pages of all conversations interleaved.
struct StorageLayout: Sendable {
  var totalMessages: Int
  var largeConversation: Int
  var pageSize = 1_000
  /// The time between two messages of the whole database (one a second: 1,000,000 messages
  /// span 12 days).
  var secondsPerMessage = 1.0
  /// `--part-three`: one message in ten carries reactions and another one in ten answers the
  /// message before it in its conversation, with its quote (API.md Part 3).
  var partThree = false

  static let full = StorageLayout(totalMessages: 1_000_000, largeConversation: 100_000)
  static let quick = StorageLayout(totalMessages: 100_000, largeConversation: 10_000)
  /// B15: two years of one busy user's chats, 5,000,000 messages (about 7,000 a day).
  static let twoYears = StorageLayout(
    totalMessages: 5_000_000, largeConversation: 100_000,
    secondsPerMessage: 2 * 365 * 86_400 / 5_000_000)
  /// B15 in a quick run: the same two years, 200,000 messages.
  static let twoYearsQuick = StorageLayout(
    totalMessages: 200_000, largeConversation: 10_000,
    secondsPerMessage: 2 * 365 * 86_400 / 200_000)

  var smallConversations: Int { (totalMessages - largeConversation) / pageSize }
}

/// What B1 leaves for the figures after it.
struct StorageFixture: Sendable {
  let layout: StorageLayout
  let folder: String
  /// The database written through `MessageStore`.
  let storePath: String
  let store: BenchmarkStore
  let me: UserID
  let large: ConversationID
  let corpus: Corpus
  /// How many messages hold each word, by the word's rank.
  let documentFrequency: [Int]
  /// How many messages hold each unspaced word, by its rank (`Corpus.unspacedWords`).
  let unspacedDocumentFrequency: [Int]
}

/// B1: catch-up ingest into `MessageStore` (FTS included), 1,000 rows a transaction, next to
/// the same rows inserted by a raw C loop into the same schema with the same pragmas: with
/// both search indexes, without the `trigram` one (what the second index costs: one GLOB per
/// row, and a trigram insert for the one message in ten that is unspaced), and without either.
/// The four writers take turns page by page (in rotating order), so a burst of load from
/// another build slows all four alike.
enum IngestFigure {
  static func run(layout: StorageLayout, folder: String) async throws -> (
    StorageFixture, [ResultRow]
  ) {
    let storePath = folder + "/store.sqlite"
    let rawPath = folder + "/raw-fts.sqlite"
    let wordsPath = folder + "/raw-words.sqlite"
    let plainPath = folder + "/raw-plain.sqlite"
    let executor = ThreadExecutor(name: "bench.store")
    let me = UserID("me")
    let store = try await BenchmarkStore.open(.file(storePath), executor: executor)
    try await store.saveSession(user: me, device: DeviceID("phone"))

    // The raw databases get the very schema the store's migrations make, then the raw loop.
    for path in [rawPath, wordsPath, plainPath] {
      let schemaExecutor = ThreadExecutor(name: "bench.schema")
      _ = try await BenchmarkStore.open(.file(path), executor: schemaExecutor)
      schemaExecutor.shutdown()
    }
    let raw = try RawDatabase(path: rawPath)
    let words = try RawDatabase(path: wordsPath)
    let plain = try RawDatabase(path: plainPath)
    let dropUnspaced = """
      DROP TRIGGER messages_unspaced_insert; DROP TRIGGER messages_unspaced_delete;
      DROP TRIGGER messages_unspaced_update; DROP TABLE message_search_unspaced;
      """
    try words.exec(dropUnspaced)
    try plain.exec(
      """
      DROP TRIGGER messages_search_insert; DROP TRIGGER messages_search_delete;
      DROP TRIGGER messages_search_update; DROP TABLE message_search;
      """ + dropUnspaced)

    var source = PageSource(layout: layout, me: me)
    try await source.saveConversations(in: store)
    var wordsTimes = Samples()
    var wordsCPU: Int64 = 0
    var storeTimes = Samples()
    var rawTimes = Samples()
    var plainTimes = Samples()
    var storeCPU: Int64 = 0
    var rawCPU: Int64 = 0
    var plainCPU: Int64 = 0
    let reportEvery = max(1, source.pageCount / 10)
    for pageIndex in 0..<source.pageCount {
      let messages = source.page(pageIndex)
      let page = BenchmarkStore.Page(conversation: messages[0].conversation, messages: messages)
      let rows = RawRows(messages)
      for turn in 0..<4 {
        switch (pageIndex + turn) % 4 {
        case 0:
          // On the store's executor, so the measurement holds no hop between threads.
          let (elapsed, cpu) = try await onExecutor(executor) {
            let cpu = CPUTime.thread()
            let started = Nanos.now()
            try await store.ingest(page, me: me)
            return (Nanos.now() - started, CPUTime.thread() - cpu)
          }
          storeTimes.add(elapsed)
          storeCPU += cpu
        case 1:
          let cpu = CPUTime.thread()
          rawTimes.add(try rows.insert(into: raw))
          rawCPU += CPUTime.thread() - cpu
        case 2:
          let cpu = CPUTime.thread()
          wordsTimes.add(try rows.insert(into: words))
          wordsCPU += CPUTime.thread() - cpu
        default:
          let cpu = CPUTime.thread()
          plainTimes.add(try rows.insert(into: plain))
          plainCPU += CPUTime.thread() - cpu
        }
      }
      if (pageIndex + 1) % reportEvery == 0 {
        progress(
          "B1: \(Report.grouped(source.written)) messages; store \(Report.grouped(rate(storeTimes, layout.pageSize)))/s, "
            + "raw \(Report.grouped(rate(rawTimes, layout.pageSize)))/s (medians so far)")
      }
    }
    raw.close()
    words.close()
    plain.close()
    for path in [rawPath, wordsPath, plainPath] { try? Database.deleteFiles(at: path) }

    let fixture = source.fixture(folder: folder, storePath: storePath, store: store)
    let corpus = source.corpus
    let written = source.written
    let workload =
      "\(Report.grouped(layout.totalMessages)) msgs, \(Report.grouped(layout.pageSize))/txn, "
      + "\(Report.grouped(corpus.words.count))-word vocabulary, 1 in "
      + "\(Corpus.unspacedEvery) unspaced (CJK)"
      + (layout.partThree ? ", 1 in 10 with reactions, 1 in 10 a reply (store only)" : "")
    let storeRate = Double(rate(storeTimes, layout.pageSize))
    let rawRate = Double(rate(rawTimes, layout.pageSize))
    let plainRate = Double(rate(plainTimes, layout.pageSize))
    let wordsRate = Double(rate(wordsTimes, layout.pageSize))
    func slowRate(_ samples: Samples) -> Double {
      Double(layout.pageSize) / Nanos.seconds(samples.p99)
    }
    func overall(_ samples: Samples) -> Double {
      Double(layout.pageSize * samples.count) / Nanos.seconds(samples.values.reduce(0, +))
    }
    var storeRow = ResultRow(
      figure: "B1", name: "ingest into MessageStore (FTS5)", workload: workload,
      unit: .perSecond, median: storeRate, p99: slowRate(storeTimes), samples: storeTimes.count,
      baselineName: "raw C loop", baseline: rawRate, ratio: storeRate / rawRate,
      target: "≥ 0.8× raw, ≥ 50,000/s", met: storeRate >= 0.8 * rawRate && storeRate >= 50_000,
      note: "median and p99 are per 1,000-row transaction (p99 = the slowest 1%)")
    // Rows per second of CPU time: what the work costs, whatever else the machine was doing.
    func perCPU(_ nanoseconds: Int64) -> Double {
      Double(written) / Nanos.seconds(max(1, nanoseconds))
    }
    storeRow.details = [
      "overallStore": overall(storeTimes), "overallRaw": overall(rawTimes),
      "overallRawWithoutTrigram": overall(wordsTimes),
      "overallRawWithoutFTS": overall(plainTimes), "storePerCPUSecond": perCPU(storeCPU),
      "rawPerCPUSecond": perCPU(rawCPU), "rawWithoutFTSPerCPUSecond": perCPU(plainCPU),
      "rawWithoutTrigramPerCPUSecond": perCPU(wordsCPU),
      "ratioPerCPUSecond": perCPU(storeCPU) / perCPU(rawCPU),
    ]
    var rawRow = ResultRow(
      figure: "B1", name: "baseline: raw C loop (FTS5)", workload: workload, unit: .perSecond,
      median: rawRate, p99: slowRate(rawTimes), samples: rawTimes.count, target: "",
      note: "same schema, triggers, pragmas and text; plain INSERT")
    rawRow.details = ["overall": overall(rawTimes)]
    var wordsRow = ResultRow(
      figure: "B1", name: "baseline: raw C loop, no trigram", workload: workload,
      unit: .perSecond, median: wordsRate, p99: slowRate(wordsTimes), samples: wordsTimes.count,
      target: "",
      note: "without the trigram index of unspaced text: what the second index costs")
    wordsRow.details = ["overall": overall(wordsTimes)]
    var plainRow = ResultRow(
      figure: "B1", name: "baseline: raw C loop, no FTS", workload: workload, unit: .perSecond,
      median: plainRate, p99: slowRate(plainTimes), samples: plainTimes.count, target: "",
      note: "the same without either FTS5 index: what the indexes cost")
    plainRow.details = ["overall": overall(plainTimes)]
    return (fixture, [storeRow, rawRow, wordsRow, plainRow])
  }

  /// Rows per second at the median transaction time.
  static func rate(_ samples: Samples, _ rows: Int) -> Int {
    samples.count == 0 ? 0 : Int(Double(rows) / Nanos.seconds(samples.median))
  }
}

/// One page of rows laid out for the C loop: NUL-terminated strings in one buffer.
struct RawRows {
  private var bytes: [CChar] = []
  private var offsets: [(Int, Int, Int, Int, Int)] = []
  private var numbers: [(Int64, Double)] = []

  init(_ messages: [BenchmarkMessage]) {
    bytes.reserveCapacity(messages.count * 200)
    for message in messages {
      let fields = [
        message.conversation.rawValue, message.clientID.rawValue, message.sender.rawValue,
        message.serverID, message.text,
      ].map { field -> Int in
        let offset = bytes.count
        bytes.append(contentsOf: field.utf8.map { CChar(bitPattern: $0) })
        bytes.append(0)
        return offset
      }
      offsets.append((fields[0], fields[1], fields[2], fields[3], fields[4]))
      numbers.append((Int64(message.sequence), message.sentAt.timeIntervalSince1970))
    }
  }

  /// Inserts the page in one transaction; returns the time the C call took.
  func insert(into database: RawDatabase) throws -> Int64 {
    try bytes.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      let rows = zip(offsets, numbers).map { offset, number in
        bench_row(
          conversation_id: base + offset.0, client_id: base + offset.1,
          sender_id: base + offset.2, server_id: base + offset.3, text: base + offset.4,
          sequence: number.0, sent_at: number.1)
      }
      return try rows.withUnsafeBufferPointer { rows in
        let started = Nanos.now()
        let code = bench_raw_insert(database.handle, rows.baseAddress, rows.count)
        let elapsed = Nanos.now() - started
        guard code == 0 else { throw BenchError("raw insert failed: \(database.error)") }
        return elapsed
      }
    }
  }
}

/// A connection of the C baseline.
final class RawDatabase: @unchecked Sendable {
  // @unchecked: one connection, used by one task at a time (each figure's measuring loop).
  let handle: OpaquePointer

  init(path: String) throws {
    var error = [CChar](repeating: 0, count: 256)
    guard let handle = bench_raw_open(path, &error, error.count) else {
      let reason = String(
        decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw BenchError("cannot open \(path): \(reason)")
    }
    self.handle = handle
  }

  var error: String { String(cString: bench_raw_error(handle)) }

  /// Rows the last INSERT, UPDATE or DELETE changed.
  var changes: Int { Int(bench_raw_changes(handle)) }

  func exec(_ sql: String) throws {
    guard bench_raw_exec(handle, sql) == 0 else { throw BenchError("\(error) in \(sql)") }
  }

  func prepare(_ sql: String) throws -> Int32 {
    let statement = bench_raw_prepare(handle, sql)
    guard statement >= 0 else { throw BenchError("cannot prepare: \(error)") }
    return statement
  }

  /// Runs a prepared statement; returns the rows and the time the C call alone took (the
  /// parameters are laid out before the clock starts).
  func query(_ statement: Int32, _ parameters: [RawParameter]) -> (rows: Int32, nanoseconds: Int64)
  {
    let texts = parameters.map { parameter -> [CChar]? in
      if case .text(let text) = parameter { return Array(text.utf8CString) }
      return nil
    }
    return withTexts(texts, index: 0, pointers: []) { pointers in
      let values = zip(parameters, pointers).map { parameter, pointer -> bench_value in
        switch parameter {
        case .integer(let value): bench_value(kind: BENCH_INTEGER, integer: Int64(value), text: nil)
        case .text: bench_value(kind: BENCH_TEXT, integer: 0, text: pointer)
        }
      }
      return values.withUnsafeBufferPointer { values in
        let started = Nanos.now()
        let rows = bench_raw_query(handle, statement, values.baseAddress, Int32(values.count))
        return (rows, Nanos.now() - started)
      }
    }
  }

  private func withTexts<T>(
    _ texts: [[CChar]?], index: Int, pointers: [UnsafePointer<CChar>?],
    _ body: ([UnsafePointer<CChar>?]) -> T
  ) -> T {
    guard index < texts.count else { return body(pointers) }
    guard let text = texts[index] else {
      return withTexts(texts, index: index + 1, pointers: pointers + [nil], body)
    }
    return text.withUnsafeBufferPointer {
      withTexts(texts, index: index + 1, pointers: pointers + [$0.baseAddress], body)
    }
  }

  func close() {
    bench_raw_close(handle)
  }
}

enum RawParameter {
  case integer(Int)
  case text(String)
}

struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
