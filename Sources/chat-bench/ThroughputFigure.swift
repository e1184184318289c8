import ChatLoad
import ChatServer
import Foundation

/// B6: durable sends accepted per second with 100 concurrent clients: 100 users in 50
/// one-to-one conversations, each on a keep-alive connection of its own, each posting its next
/// message as soon as the last was acknowledged (so at most 100 in flight). Acknowledged means
/// committed with `synchronous=FULL` (group commit: one fsync per batch).
///
/// The load generator (`HTTPLoadGenerator`) is checked two ways: its own thread's CPU time
/// during the run, and a control run of the same 100 clients against `GET /healthz`, which
/// shows how many requests a second it can drive when the server does almost nothing.
enum ThroughputFigure {
  static func run(server: BenchServer, quick: Bool) async throws -> (ResultRow, [String]) {
    let clients = 100
    var tokens: [String] = []
    var conversations: [String] = []
    for pair in 0..<(clients / 2) {
      let first = try await server.signIn("b6-a\(pair)")
      let second = try await server.signIn("b6-b\(pair)")
      let conversation = try await server.createConversation(
        token: first, title: "B6 \(pair)", members: ["b6-b\(pair)"])
      tokens += [first, second]
      conversations += [conversation, conversation]
    }
    let commitsBefore = await server.service.commits()
    let port = server.port
    let requests: [@Sendable (Int) throws -> [UInt8]] = (0..<clients).map { client in
      let token = tokens[client]
      let path = "/v1/conversations/\(conversations[client])/messages"
      return { count in
        let id = String(format: "%08x-0000-7000-8000-%012x", client, count)
        return try LoadRequest.make(
          .post, port: port, path: path, token: token,
          json: #"{"clientMessageId":"\#(id)","text":"durable message \#(count) from \#(client)"}"#)
      }
    }
    let seconds: Int64 = quick ? 2 : 10
    let processCPU = CPUTime.process()
    let result = try await HTTPLoadGenerator.run(
      port: port, method: .post, requests: requests, warmUp: 1_000_000_000,
      duration: seconds * 1_000_000_000)
    // The server's CPU per request: the process's CPU time less the generator's thread.
    let serverCPU = CPUTime.process() - processCPU - result.cpuNanoseconds
    let commitsAfter = await server.service.commits()
    guard result.statuses.keys.allSatisfy({ $0 == 201 }) else {
      throw BenchError("B6: unexpected statuses \(result.statuses)")
    }
    // The control: the same generator, the cheapest route.
    let healthz = try LoadRequest.make(.get, port: port, path: "/healthz")
    let control = try await HTTPLoadGenerator.run(
      port: port, method: .get,
      requests: [@Sendable (Int) throws -> [UInt8]](
        repeating: { _ in healthz }, count: clients),
      warmUp: 500_000_000, duration: 2_000_000_000)
    progress(
      String(
        format: "B6: %.0f sends/s (generator %.0f%% of a core), healthz control %.0f/s",
        result.throughput, result.cpuShare * 100, control.throughput))

    let perSecond = result.perSecond.map(Double.init).sorted()
    var row = ResultRow(
      figure: "B6", name: "durable sends accepted",
      workload: "100 keep-alive clients, 50 convs, closed loop, \(seconds) s",
      unit: .perSecond, median: perSecond[perSecond.count / 2], p99: perSecond.first,
      samples: result.completed, target: "≥ 7,000/s",
      met: perSecond[perSecond.count / 2] >= 7_000,
      note: "median and slowest of the 1-second windows; request p50 "
        + String(
          format: "%.2f ms, p99 %.2f ms", Double(result.latencies.median) / 1e6,
          Double(result.latencies.p99) / 1e6))
    let batches = max(1, commitsAfter - commitsBefore)
    row.details = [
      "average": result.throughput, "requestP50ms": Double(result.latencies.median) / 1e6,
      "requestP99ms": Double(result.latencies.p99) / 1e6,
      "generatorCoreShare": result.cpuShare, "controlHealthzPerSecond": control.throughput,
      "commits": Double(commitsAfter - commitsBefore),
      "writesPerCommit": Double(result.total) / Double(batches),
      "serverCPUPerSendMs": Double(serverCPU) / Double(max(1, result.total)) / 1e6,
    ]
    let note = String(
      format: "B6 load generator: one Wire loop (ChatLoad's closed loop), 100 keep-alive "
        + "connections; it used %.0f%% of a "
        + "core during the run, and drove %.0f requests/s against GET /healthz (%.1f× the "
        + "figure), so the server, not the generator, set the figure.",
      result.cpuShare * 100, control.throughput, control.throughput / max(1, result.throughput))
    return (row, [note])
  }
}
