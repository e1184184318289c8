import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatLoad
import ChatPresentation
import ChatTransports
import Foundation
import Glibc

/// B4: send-to-sent over loopback at 1,000 messages/s offered, into one conversation and then
/// spread over 10 (one outbox each, side by side): the engine saves the message,
/// the outbox posts it, the server commits it durably (fsync), and the row turns sent (the
/// post's reply or the socket's echo, whichever comes first). Next to its physical limit: a
/// bare HTTP round trip to the same server on a raw socket, and one fsync in the server's
/// folder.
enum SendFigure {
  struct Counts {
    var messages: Int
    var roundTrips: Int
    static let full = Counts(messages: 3_000, roundTrips: 2_000)
    static let quick = Counts(messages: 1_000, roundTrips: 300)
  }

  /// The send-to-sent samples, for the chart.
  struct Outcome {
    var rows: [ResultRow]
    var sendToSent: Samples
    var oneAtATime: Samples
  }

  static func run(server: BenchServer, counts: Counts, partThree: Bool = false) async throws
    -> Outcome
  {
    let alice = try await server.device("alice")
    let chat = try await alice.conversationList.createConversation(
      title: "B4", memberIDs: [UserID("bob")])
    try await alice.startAndConnect()
    let sent = await alice.sentMessages()
    let collector = SentCollector()
    let collecting = Task { for await message in sent { await collector.add(message) } }

    // fsync times drift with what else the machine's disk is doing: half before, half after.
    var fsyncs = try fsyncTimes(folder: server.folder, count: counts.roundTrips / 2)

    // One at a time first: each message's own path, with no queue in front of it.
    var oneAtATime = Samples()
    var last: MessageID?
    for index in 0..<(100 + counts.roundTrips / 2) {
      let started = Nanos.now()
      let id = try await send(
        "B4 closed \(index)", number: index, earlier: partThree ? last : nil, in: chat,
        messages: alice.messages)
      last = id
      let times = try await collector.wait(for: [id], timeout: 10)
      if index >= 100, let sentAt = times[id] { oneAtATime.add(sentAt - started) }
    }
    let burst = try await offer(
      perSecond: 1_000, total: 300 + counts.messages, warmUp: 300, cycling: [chat],
      engine: alice, collector: collector, partThree: partThree)
    var conversations = [chat]
    for index in 1..<10 {
      conversations.append(
        try await alice.conversationList.createConversation(
          title: "B4 \(index)", memberIDs: [UserID("bob")]))
    }
    let spread = try await offer(
      perSecond: 1_000, total: 300 + counts.messages, warmUp: 300, cycling: conversations,
      engine: alice, collector: collector, partThree: partThree)
    collecting.cancel()
    let metrics = await alice.metrics()
    await alice.close()
    for (name, offered) in [("one conversation", burst), ("10 conversations", spread)] {
      progress(
        "B4: send-to-sent at 1,000/s, \(name): median \(offered.samples.median / 1000) µs, "
          + "p99 \(offered.samples.p99 / 1000) µs, \(Int(offered.sentPerSecond)) sent/s")
    }

    // The physical limit: a raw HTTP round trip to the same server, and one fsync.
    let roundTrips = try rawRoundTrips(port: server.port, count: counts.roundTrips)
    let wire = try await transportRoundTrips(
      try WireHTTPTransport(baseURL: server.baseURL), count: counts.roundTrips / 2)
    let urlSession = try await transportRoundTrips(
      URLSessionTransport(baseURL: server.baseURL), count: counts.roundTrips / 2)
    fsyncs.append(contentsOf: try fsyncTimes(folder: server.folder, count: counts.roundTrips / 2))
    let limit = Samples([roundTrips.median + fsyncs.median])

    func row(_ offered: Offered, name: String, workload: String) -> ResultRow {
      var row = ResultRow.latency(
        "B4", name, workload: workload, samples: offered.samples, baselineName: "RTT+fsync",
        baseline: limit, target: "p50 ≤ 1.5 ms, p99 ≤ 5 ms",
        met: { median, p99 in median <= 1.5 && p99 <= 5 },
        note:
          "from send() to the row turning sent; \(offered.samples.count) of "
          + "\(counts.messages) measured")
      row.details["offeredPerSecond"] = offered.offeredPerSecond
      row.details["sentPerSecond"] = offered.sentPerSecond
      row.details["sendsLateBy1ms"] = Double(offered.lateSends)
      return row
    }
    var burstRow = row(
      burst, name: "send-to-sent", workload: "loopback, 1,000 msgs/s offered, one conversation")
    burstRow.details["postsAttempted"] = Double(metrics.sendAttempts)
    burstRow.details["temporaryFailures"] = Double(metrics.temporaryFailures)
    // One at a time, the target is relative: 3× the bare round trip plus one fsync.
    let bound = Double(limit.median) / 1e6
    return Outcome(
      rows: [
        burstRow,
        row(
          spread, name: "send-to-sent, 10 conversations",
          workload: "loopback, 1,000 msgs/s offered over 10 conversations"),
        .latency(
          "B4", "send-to-sent, one at a time", workload: "loopback, next send once sent",
          samples: oneAtATime, baselineName: "RTT+fsync", baseline: limit,
          target: "p50 ≤ 3× RTT+fsync, p99 ≤ 2 ms",
          met: { median, p99 in median <= 3 * bound && p99 <= 2 },
          note: "no queue: what one message's path costs"),
        .latency(
          "B4", "baseline: HTTP round trip, raw", workload: "GET /healthz, keep-alive socket",
          samples: roundTrips, target: ""),
        .latency(
          "B4", "baseline: HTTP round trip, Wire",
          workload: "GET /healthz, the engine's HTTP client", samples: wire, target: "",
          note: "the client the engine uses on Linux (WireHTTPTransport, keep-alive)"),
        .latency(
          "B4", "baseline: HTTP round trip, URLSession",
          workload: "GET /healthz, URLSessionTransport", samples: urlSession, target: "",
          note: "the client Apple platforms use; on Linux FoundationNetworking, libcurl"),
        .latency(
          "B4", "baseline: fsync",
          workload: "4 KiB pwrite + fdatasync, server's folder, before and after",
          samples: fsyncs, target: ""),
      ], sendToSent: burst.samples, oneAtATime: oneAtATime)
  }

  /// What an open-loop offering measured.
  struct Offered {
    var samples: Samples
    var offeredPerSecond: Double
    /// Messages turned sent per second over the offering (the outbox keeps up when this is
    /// the offered rate).
    var sentPerSecond: Double
    var lateSends: Int
  }

  /// Sends `total` messages at `perSecond`, each at its own slot, into `conversations` in turn;
  /// the first `warmUp` are not measured. Each send is its own task, as a tap is
  /// (`ConversationViewModel.send`), so a busy engine delays the saves, which counts, but not
  /// the offering: the clock starts at the slot.
  static func offer(
    perSecond: Int, total: Int, warmUp: Int, cycling conversations: [ConversationID],
    engine: ChatEngine, collector: SentCollector, partThree: Bool
  ) async throws -> Offered {
    let interval = Int64(1_000_000_000 / perSecond)
    let begin = Nanos.now() + 10_000_000
    var lateSends = 0
    var sends: [(task: Task<MessageID?, Never>, started: Int64)] = []
    sends.reserveCapacity(total)
    for index in 0..<total {
      let slot = begin + Int64(index) * interval
      await sleep(until: slot)
      let now = Nanos.now()
      if now - slot > interval { lateSends += 1 }
      let messages = engine.messages
      let conversation = conversations[index % conversations.count]
      let earlier =
        partThree && index >= conversations.count && [3, 7].contains(index % 10)
        ? await sends[index - conversations.count].task.value : nil
      sends.append(
        (
          Task {
            try? await send(
              "B4 message \(index)", number: index, earlier: earlier, in: conversation,
              messages: messages)
          }, now
        ))
    }
    let offeredSeconds = Nanos.seconds(Nanos.now() - begin)
    var startedAt: [MessageID: Int64] = [:]
    var measured: [MessageID] = []
    for (index, send) in sends.enumerated() {
      guard let id = await send.task.value else { throw BenchError("B4: a send failed") }
      startedAt[id] = send.started
      if index >= warmUp { measured.append(id) }
    }
    let times = try await collector.wait(for: Set(startedAt.keys), timeout: 120)
    var samples = Samples()
    for id in measured {
      if let sentAt = times[id], let started = startedAt[id] { samples.add(sentAt - started) }
    }
    let lastSent = startedAt.keys.compactMap { times[$0] }.max() ?? begin
    return Offered(
      samples: samples, offeredPerSecond: Double(total) / offeredSeconds,
      sentPerSecond: Double(total) / Nanos.seconds(lastSent - begin), lateSends: lateSends)
  }

  /// Send `number` of a B4 loop. With `--part-three` (`earlier` given: the last message sent
  /// in the conversation), send 7 of every 10 answers it, and a reaction to it goes before
  /// send 3 of every 10 (queued in the same outbox, not measured itself).
  static func send(
    _ text: String, number: Int, earlier: MessageID?, in conversation: ConversationID,
    messages: any MessageRepository
  ) async throws -> MessageID {
    guard let earlier else { return try await messages.send(text, in: conversation) }
    switch number % 10 {
    case 7: return try await messages.reply(text, to: earlier, in: conversation)
    case 3: try await messages.react("👍", to: earlier, in: conversation, remove: false)
    default: break
    }
    return try await messages.send(text, in: conversation)
  }

  /// GET /healthz on one keep-alive connection, one at a time, through ChatLoad's closed loop
  /// (the first 100 not counted).
  static func rawRoundTrips(port: Int, count: Int) throws -> Samples {
    let request = try LoadRequest.make(.get, port: port, path: "/healthz")
    let recorder = RoundTrips(skipping: 100, count: count)
    _ = try ClosedLoop.run(
      [ClosedLoop.Client(port: port) { _ in request }], name: "bench.round-trips",
      giveUpAt: Nanos.now() + 300_000_000_000
    ) { _ in recorder }
    return recorder.samples
  }

  /// The round trips of one client, on its loop's thread; read after the run.
  private final class RoundTrips: LoadRecorder, @unchecked Sendable {
    // @unchecked: used on the loop's thread during the run, read only after it.
    let skipping: Int
    let count: Int
    var seen = 0
    var samples = Samples()

    init(skipping: Int, count: Int) {
      (self.skipping, self.count) = (skipping, count)
    }

    func record(client: Int, status: Int, sentAt: Int64, answeredAt: Int64) -> Bool {
      seen += 1
      if seen > skipping { samples.add(answeredAt - sentAt) }
      return seen < skipping + count
    }
  }

  /// GET /healthz through an engine transport, one at a time.
  static func transportRoundTrips(_ transport: any HTTPTransport, count: Int) async throws
    -> Samples
  {
    var samples = Samples()
    for index in 0..<(count + 50) {
      let started = Nanos.now()
      let response = try await transport.send(APIRequest(.healthz))
      guard response.status == 200 else { throw BenchError("healthz: \(response.status)") }
      if index >= 50 { samples.add(Nanos.now() - started) }
    }
    return samples
  }

  /// A 4 KiB write and `fdatasync`, appended to a file as SQLite appends frames to its WAL. (An
  /// overwrite in place is as fast at the median here but waits up to 4 ms now and then.)
  static func fsyncTimes(folder: String, count: Int) throws -> Samples {
    let path = folder + "/fsync-probe"
    let fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw BenchError("cannot open \(path)") }
    defer {
      close(fd)
      unlink(path)
    }
    let block = [UInt8](repeating: 0x5A, count: 4096)
    var samples = Samples()
    for index in 0..<(count + 20) {
      let started = Nanos.now()
      _ = pwrite(fd, block, block.count, off_t(index * 4096))
      fdatasync(fd)
      if index >= 20 { samples.add(Nanos.now() - started) }
    }
    return samples
  }
}

/// Collects the engine's "sent" moments.
actor SentCollector {
  private var times: [MessageID: Int64] = [:]
  private var remaining: Set<MessageID>?
  private var waiter: CheckedContinuation<Void, Never>?

  func add(_ message: SentMessage) {
    times[message.id] = Nanos.of(message.sentAt)
    remaining?.remove(message.id)
    if remaining?.isEmpty == true { finish() }
  }

  /// Returns once every id in `ids` has turned sent, or after `timeout` seconds.
  func wait(for ids: Set<MessageID>, timeout: Int) async throws -> [MessageID: Int64] {
    remaining = ids.subtracting(times.keys)
    if remaining?.isEmpty == false {
      let timer = Task {
        try await Task.sleep(for: .seconds(timeout))
        self.finish()
      }
      await withCheckedContinuation { waiter = $0 }
      timer.cancel()
    }
    if let missing = remaining, !missing.isEmpty {
      throw BenchError("\(missing.count) messages never turned sent")
    }
    return times
  }

  private func finish() {
    waiter?.resume()
    waiter = nil
  }
}
