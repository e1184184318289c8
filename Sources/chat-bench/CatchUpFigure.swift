import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// B9: reconnect after missed messages. A device is stopped (socket closed); 10,000 messages
/// arrive at the server meanwhile; the device starts again. Measured: from `start()` until the
/// all of them are in the device's database (saved in the same transactions as their search
/// index rows, so stored means indexed). On the way: the socket connects, `/v1/sync` says the
/// conversation changed, and `?after=` pages of 200 are fetched and saved.
///
/// Its bound, measured after each reconnect: the raw C loop (`CBenchBaseline`) inserting the
/// same number of rows of the same shape, in transactions of 200, into a copy of the device's
/// database as it is then (`VACUUM INTO`), so with its FTS5 index at the same size. The index's
/// merges grow with it, which is why every reconnect is slower than the one before.
enum CatchUpFigure {
  static func run(server: BenchServer, missed: Int, repetitions: Int) async throws -> ResultRow {
    let device = try await server.device("erin")
    let chat = try await device.conversationList.createConversation(
      title: "B9", memberIDs: [UserID("frank")])
    let frank = try await server.signIn("frank")
    try await device.startAndConnect()
    var samples = Samples()
    var rawIngest = Samples()
    var pages = 0.0
    for repetition in 0..<repetitions {
      await device.stop()
      // The missed messages, posted by 50 concurrent senders (setup: not measured).
      let perSender = missed / 50
      try await withThrowingTaskGroup(of: Void.self) { group in
        for sender in 0..<50 {
          group.addTask {
            for index in 0..<perSender {
              try await server.post(
                token: frank, conversation: chat.rawValue,
                text: "missed \(repetition) \(sender) \(index) while you were away")
            }
          }
        }
        try await group.waitForAll()
      }
      let last = try await server.post(
        token: frank, conversation: chat.rawValue, text: "zq\(repetition)last one")
      if let held = try await device.localMessages(in: chat, limit: 1).last?.sequence,
        held >= last - 1
      {
        throw BenchError("B9: the stopped device already holds the missed messages")
      }
      let changes = device.changedConversations()
      let before = await device.metrics()
      let started = Nanos.now()
      await device.start()
      var caughtUp = false
      // `/v1/sync` brings the newest message at once (as each conversation's last message);
      // the catch-up then fills the gap below it in ascending pages, so the gap is filled when
      // the message just below the newest is held.
      for await changed in changes where changed.contains(chat) {
        let newest = try await device.localMessages(in: chat, limit: 2).compactMap(\.sequence)
        if newest == [last - 1, last] {
          caughtUp = true
          break
        }
      }
      let elapsed = Nanos.now() - started
      guard caughtUp else { throw BenchError("B9: the device never caught up") }
      samples.add(elapsed)
      let hits = try await device.conversationList.search("zq\(repetition)last", limit: 1).hits
      guard hits.count == 1 else { throw BenchError("B9: the last message is not indexed") }
      // The catch-up counts its messages when it returns, just after the last page was saved.
      var after = await device.metrics()
      let deadline = Nanos.now() + 2_000_000_000
      while after.catchUps == before.catchUps && Nanos.now() < deadline {
        try await Task.sleep(for: .milliseconds(5))
        after = await device.metrics()
      }
      let fetched = after.catchUpMessages - before.catchUpMessages
      pages += (Double(fetched) / 200).rounded(.up)
      let raw = try rawIngestTime(
        like: missed + 1, conversation: chat, after: last, repetition: repetition,
        database: server.folder + "/device-erin-phone.sqlite")
      rawIngest.add(raw)
      progress(
        "B9: caught up \(missed + 1) messages in \(elapsed / 1_000_000) ms, \(fetched) fetched; "
          + "raw C ingest of as many into a copy: \(raw / 1_000_000) ms")
    }
    await device.close()
    var row = ResultRow.latency(
      "B9", "reconnect: all missed stored and indexed",
      workload: "\(Report.grouped(missed + 1)) missed msgs, \(repetitions) reconnects",
      samples: samples, baselineName: "raw C ingest", baseline: rawIngest, target: "≤ 0.5 s",
      met: { _, p99 in p99 <= 500 },
      note:
        "from start() to every missed message in the database (and its index); baseline: the "
        + "C loop inserting as many rows, 200 a transaction, into a copy of the database then")
    row.details["pagesPerReconnect"] = pages / Double(max(1, repetitions))
    return row
  }

  /// The C loop's time to insert `count` rows like the missed ones, 200 per transaction, into
  /// a copy of `database` (made with `VACUUM INTO`, which keeps the FTS5 index's segments).
  static func rawIngestTime(
    like count: Int, conversation: ConversationID, after sequence: Int, repetition: Int,
    database: String
  ) throws -> Int64 {
    let copy = database + ".b9-copy"
    try? FileManager.default.removeItem(atPath: copy)
    defer {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: copy + suffix)
      }
    }
    let source = try RawDatabase(path: database)
    try source.exec("VACUUM INTO '\(copy)'")
    source.close()
    let target = try RawDatabase(path: copy)
    defer { target.close() }
    let sentAt = Date()
    var total: Int64 = 0
    for start in stride(from: 0, to: count, by: 200) {
      let page = (start..<min(count, start + 200)).map { index in
        BenchmarkMessage(
          conversation: conversation, clientID: MessageID(UUID()),
          sender: UserID("frank"), serverID: "b9-raw-\(repetition)-\(index)",
          text: "missed \(repetition) \(index % 50) \(index / 50) while you were away",
          sequence: sequence + 1 + index, sentAt: sentAt)
      }
      total += try RawRows(page).insert(into: target)
    }
    return total
  }
}
