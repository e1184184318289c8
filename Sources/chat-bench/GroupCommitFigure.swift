import ChatAPI
import ChatServer
import Foundation
import SQLite
import Support

/// B6S: durable sends per second without the network. 100 clients (100 users in 50 one-to-one
/// conversations) call `ChatService.handle` directly, in this process, each posting its next
/// message as soon as the last was acknowledged: B6's load with no sockets, no HTTP and no
/// Wire loops, so what is left is the service, the store and the group commit.
///
/// Four layouts, each on a fresh store: a file store (WAL, `synchronous=FULL`: one fsync per
/// group commit) and an in-memory one (no fsync, the baseline), each with the store on a
/// `ThreadExecutor` of its own (as `chat-server` runs it) and with the store sharing the
/// service's executor.
enum GroupCommitFigure {
  struct Layout {
    var onDisk: Bool
    var storeOnItsOwnExecutor: Bool

    var name: String {
      (onDisk ? "durable sends, file store" : "baseline: in-memory store")
        + (storeOnItsOwnExecutor ? ", store on its own executor" : ", one executor for both")
    }
  }

  static let clients = 100

  static func run(folder: String, quick: Bool) async throws -> [ResultRow] {
    let seconds = quick ? 1 : 3
    let warmUp: Int64 = quick ? 250_000_000 : 1_000_000_000
    let layouts = [true, false].flatMap { onDisk in
      [true, false].map { Layout(onDisk: onDisk, storeOnItsOwnExecutor: $0) }
    }
    var measured: [(Layout, Measurement)] = []
    for (index, layout) in layouts.enumerated() {
      let measurement = try await measure(
        layout, folder: folder + "/b6s-\(index)", warmUp: warmUp,
        duration: Int64(seconds) * 1_000_000_000)
      progress(
        "B6S: \(layout.name): "
          + String(
            format: "%.0f sends/s, %.1f sends per commit", measurement.throughput,
            measurement.writesPerCommit))
      measured.append((layout, measurement))
    }
    // A file store next to the in-memory one with the same executors: what the fsyncs cost.
    let inMemory = Dictionary(
      uniqueKeysWithValues: measured.filter { !$0.0.onDisk }.map {
        ($0.0.storeOnItsOwnExecutor, $0.1)
      })
    return measured.map { layout, measurement in
      let baseline = layout.onDisk ? inMemory[layout.storeOnItsOwnExecutor] : nil
      let perSecond = measurement.perSecond.map(Double.init).sorted()
      let median = perSecond[perSecond.count / 2]
      var row = ResultRow(
        figure: "B6S", name: layout.name,
        workload: "\(clients) clients, 50 convs, closed loop, no network, \(seconds) s",
        unit: .perSecond, median: median, p99: perSecond.first, samples: measurement.completed,
        baselineName: baseline.map { _ in "in-memory" }, baseline: baseline?.medianPerSecond,
        ratio: baseline.map { median / $0.medianPerSecond }, target: "", met: nil,
        note: "median and slowest of the 1-second windows; request p50 "
          + String(
            format: "%.2f ms, p99 %.2f ms", Double(measurement.latencies.median) / 1e6,
            Double(measurement.latencies.p99) / 1e6))
      row.details = [
        "average": measurement.throughput,
        "requestP50ms": Double(measurement.latencies.median) / 1e6,
        "requestP99ms": Double(measurement.latencies.p99) / 1e6,
        "commits": Double(measurement.commits), "writesPerCommit": measurement.writesPerCommit,
        "processCPUPerSendMs": measurement.cpuPerSendMilliseconds,
      ]
      return row
    }
  }

  struct Measurement {
    /// Sends acknowledged inside the measured window.
    var completed = 0
    /// Sends acknowledged in each second of the window.
    var perSecond: [Int] = []
    var latencies = Samples()
    var windowNanoseconds: Int64 = 0
    /// Group commits and sends over the whole run, warm-up included.
    var commits = 0
    var total = 0
    /// CPU time of the whole process (service, store and the clients), warm-up included.
    var cpuNanoseconds: Int64 = 0

    var throughput: Double { Double(completed) / Nanos.seconds(windowNanoseconds) }
    var medianPerSecond: Double { Double(perSecond.sorted()[perSecond.count / 2]) }
    var writesPerCommit: Double { Double(total) / Double(max(1, commits)) }
    var cpuPerSendMilliseconds: Double { Double(cpuNanoseconds) / Double(max(1, total)) / 1e6 }
  }

  /// One client's acknowledged sends: when each was acknowledged, and how long it took.
  private struct ClientLog: Sendable {
    var acknowledgedAt: [Int64] = []
    var latencies: [Int64] = []
  }

  private static func measure(
    _ layout: Layout, folder: String, warmUp: Int64, duration: Int64
  ) async throws -> Measurement {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let serviceExecutor = ThreadExecutor(name: "bench.b6s.service")
    let storeExecutor =
      layout.storeOnItsOwnExecutor ? ThreadExecutor(name: "bench.b6s.store") : serviceExecutor
    let store = try ServerStore(
      layout.onDisk ? .dataFolder(folder) : .memory, executor: storeExecutor)
    let service = ChatService(
      store: store, configuration: ServerConfiguration(devMode: true, rateLimit: nil),
      clock: SystemTimeSource(), random: SystemRandomNumberGenerator(),
      executor: serviceExecutor)
    defer {
      serviceExecutor.shutdown()
      if layout.storeOnItsOwnExecutor { storeExecutor.shutdown() }
    }

    var templates: [APIRequest] = []
    for pair in 0..<(clients / 2) {
      let first = try await service.signIn("b6s-a\(pair)")
      let second = try await service.signIn("b6s-b\(pair)")
      let conversation = try await service.createConversation(
        token: first, title: "B6S \(pair)", members: ["b6s-b\(pair)"])
      for token in [first, second] {
        templates.append(
          APIRequest(
            method: "POST", path: "/v1/conversations/\(conversation)/messages",
            headers: ["authorization": "Bearer \(token)"]))
      }
    }

    let commitsBefore = await service.commits()
    let cpuBefore = CPUTime.process()
    let windowStart = Nanos.now() + warmUp
    let end = windowStart + duration
    let logs = try await withThrowingTaskGroup(of: ClientLog.self) { group in
      for (client, template) in templates.enumerated() {
        group.addTask {
          var request = template
          var log = ClientLog()
          var count = 0
          while true {
            let sentAt = Nanos.now()
            if sentAt >= end { break }
            let id = String(format: "%08x-0000-7000-8000-%012x", client, count)
            request.body = Array(
              #"{"clientMessageId":"\#(id)","text":"durable message \#(count) from \#(client)"}"#
                .utf8)
            let response = await service.handle(request)
            guard response.status == 201 else {
              throw BenchError("B6S: a send answered \(response.status)")
            }
            let acknowledgedAt = Nanos.now()
            log.acknowledgedAt.append(acknowledgedAt)
            log.latencies.append(acknowledgedAt - sentAt)
            count += 1
          }
          return log
        }
      }
      var logs: [ClientLog] = []
      for try await log in group { logs.append(log) }
      return logs
    }
    let cpu = CPUTime.process() - cpuBefore
    let commitsAfter = await service.commits()
    await serviceExecutor.waitUntilIdle()
    await storeExecutor.waitUntilIdle()

    var measurement = Measurement()
    measurement.perSecond = [Int](repeating: 0, count: max(1, Int(duration / 1_000_000_000)))
    for log in logs {
      measurement.total += log.acknowledgedAt.count
      for (at, latency) in zip(log.acknowledgedAt, log.latencies)
      where at >= windowStart && at < end {
        measurement.completed += 1
        measurement.latencies.add(latency)
        let second = Int((at - windowStart) / 1_000_000_000)
        measurement.perSecond[min(second, measurement.perSecond.count - 1)] += 1
      }
    }
    measurement.windowNanoseconds = duration
    measurement.commits = commitsAfter - commitsBefore
    measurement.cpuNanoseconds = cpu
    return measurement
  }
}
