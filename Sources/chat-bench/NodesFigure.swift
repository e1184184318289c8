import ChatLoad
import Foundation
import Glibc
import Postgres

/// B14: the server beyond one machine. Durable sends per second and their latency with 100
/// clients on `chat-server` processes: one node on SQLite, then one, two and three nodes on one
/// PostgreSQL database (the clients spread over the nodes, the two users of each conversation
/// on different nodes), next to `pgbench`'s single-row insert rate on the same cluster (the
/// limit: a durable commit per row); and a message's live event on a socket of the same node as
/// the sender and of another node. On a 2-core machine every node and the database share the
/// cores, so each row also gives the CPU time per accepted send (the nodes', the database's).
///
/// Needs a cluster (`scripts/postgres-local start`): `chat-bench --postgres DIR`; each
/// configuration gets a fresh database in it. With `--nats DIR` (a cluster `scripts/nats-local
/// start` made) the same again with the nodes relaying through NATS (`chat-server --relay`),
/// the NATS servers' CPU counted apart, and the live event across nodes through NATS next to
/// NOTIFY's. The `chat-server` binary is the one built next to this one.
enum NodesFigure {
  static func run(postgres folder: String, nats natsFolder: String?, quick: Bool) async throws
    -> ([ResultRow], [String])
  {
    let cluster = try PostgresCluster(folder: folder)
    let nats = try natsFolder.map(NATSCluster.init)
    let server = URL(fileURLWithPath: executablePath()).deletingLastPathComponent()
      .appendingPathComponent("chat-server").path
    guard FileManager.default.isExecutableFile(atPath: server) else {
      throw BenchError("B14 needs chat-server built next to chat-bench: \(server)")
    }
    let seconds = quick ? 2 : 10
    var rows: [ResultRow] = []
    var notes: [String] = []

    let limit = try pgbenchInserts(cluster, seconds: seconds)
    progress(String(format: "B14: pgbench single-row inserts %.0f/s", limit))
    rows.append(
      ResultRow(
        figure: "B14", name: "pgbench: single-row inserts (the limit)",
        workload: "32 clients, one INSERT per transaction, \(seconds) s", unit: .perSecond,
        median: limit, p99: nil, samples: Int(limit) * seconds, target: "",
        note: "PostgreSQL's own client on the same cluster: a durable commit per row"))

    var sqlite: Double?
    var configurations = [("SQLite", 1), ("PostgreSQL", 1), ("PostgreSQL", 2), ("PostgreSQL", 3)]
    if nats != nil {
      configurations += [
        ("PostgreSQL + NATS", 1), ("PostgreSQL + NATS", 2), ("PostgreSQL + NATS", 3),
      ]
    }
    for (label, nodes) in configurations {
      let database = label == "SQLite" ? nil : try cluster.freshDatabase()
      var arguments = database.map { ["--database", $0] } ?? []
      let relayed = label.hasSuffix("NATS")
      if relayed, let nats { arguments += ["--relay", nats.urls] }
      let servers = try (0..<nodes).map { _ in
        try SpawnedServer(binary: server, extraArguments: arguments)
      }
      defer { for node in servers { node.stop() } }
      var configuration = SendLoadConfiguration(
        port: servers[0].port, clients: 100, warmup: .seconds(quick ? 1 : 2),
        duration: .seconds(seconds), serverPID: servers[0].pid)
      configuration.otherPorts = servers.dropFirst().map(\.port)
      configuration.otherServerPIDs = servers.dropFirst().map(\.pid)
      if database != nil {
        // The nodes open their pooled connections under load: a short run first, so the
        // database's processes are all there to be counted.
        var opening = configuration
        (opening.warmup, opening.duration) = (.zero, .seconds(1))
        let warming = opening
        _ = try await onThread("bench.nodes") { try SendLoad.run(warming) }
        configuration.databasePIDs = cluster.processes()
        if relayed, let nats { configuration.relayPIDs = nats.processes() }
      }
      let measured = configuration
      let report = try await onThread("bench.nodes") { try SendLoad.run(measured) }
      guard report.isClean else {
        throw BenchError("B14 \(label) × \(nodes): not clean: \(report.summary)")
      }
      let name = "\(label), \(nodes) node\(nodes == 1 ? "" : "s")"
      progress(String(format: "B14: %@ %.0f sends/s", name, report.sendsPerSecond))
      let accepted = Double(max(1, report.accepted))
      var row = ResultRow(
        figure: "B14", name: "durable sends/s: \(name)",
        workload: "100 keep-alive clients, 50 convs, closed loop, \(seconds) s", unit: .perSecond,
        median: report.sendsPerSecond, p99: nil, samples: report.accepted,
        baselineName: database == nil ? nil : "pgbench inserts",
        baseline: database == nil ? nil : limit,
        ratio: database == nil ? nil : report.sendsPerSecond / limit, target: "",
        note: String(
          format: "request p50 %.2f ms, p99 %.2f ms", report.latencyMilliseconds.p50,
          report.latencyMilliseconds.p99))
      row.details["requestP50ms"] = report.latencyMilliseconds.p50
      row.details["requestP99ms"] = report.latencyMilliseconds.p99
      row.details["serverCPUPerSendMs"] = (report.serverCPUSeconds ?? 0) * 1e3 / accepted
      if let databaseCPU = report.databaseCPUSeconds {
        row.details["databaseCPUPerSendMs"] = databaseCPU * 1e3 / accepted
      }
      if let relayCPU = report.relayCPUSeconds {
        row.details["relayCPUPerSendMs"] = relayCPU * 1e3 / accepted
      }
      row.details["generatorCoreShare"] = report.generatorCPUSeconds / report.seconds
      if database == nil { sqlite = report.sendsPerSecond }
      rows.append(row)
    }
    if let sqlite {
      notes.append(
        String(
          format: "B14: the SQLite node group-commits (%.0f sends/s); on PostgreSQL each send is "
            + "a transaction of its own, its conversation's row lock held to the commit.",
          sqlite))
    }

    // A live event: on the sender's node, and on another (through NOTIFY, then NATS).
    let messages = quick ? 50 : 500
    var relays: [(String, [String])] = [("NOTIFY", [])]
    if let nats { relays.append(("NATS", ["--relay", nats.urls])) }
    for (relay, relayArguments) in relays {
      let database = try cluster.freshDatabase()
      let nodes = try (0..<2).map { _ in
        try SpawnedServer(
          binary: server, extraArguments: ["--database", database] + relayArguments)
      }
      defer { for node in nodes { node.stop() } }
      var within: Samples?
      for (label, receiverNode) in [("within one node", 0), ("across nodes", 1)] {
        let samples = try await fanOut(
          senderPort: nodes[0].port, receiverPort: nodes[receiverNode].port, messages: messages,
          prefix: "b14\(relay.lowercased())\(receiverNode)")
        progress("B14: live event \(label) (\(relay)) median \(samples.median / 1000) µs")
        rows.append(
          .latency(
            "B14", "a message's live event, \(label), nodes relaying through \(relay)",
            workload: "post on node A, socket on node \(receiverNode == 0 ? "A" : "B"), "
              + "\(messages) messages one at a time",
            samples: samples, baselineName: within == nil ? nil : "within one node",
            baseline: within, target: within == nil ? "" : "p50 ≤ 1.2× within one node",
            met: { median, _ in within.map { median <= 1.2 * Double($0.median) / 1e6 } },
            note: "from the POST's write to the event's read; across nodes it goes through "
              + (relay == "NATS" ? "the NATS cluster" : "PostgreSQL's NOTIFY")))
        within = within ?? samples
      }
    }
    return (rows, notes)
  }

  /// The time from writing a POST on `senderPort` to reading its message event on a socket
  /// held on `receiverPort`, one message at a time.
  private static func fanOut(senderPort: Int, receiverPort: Int, messages: Int, prefix: String)
    async throws -> Samples
  {
    let senderToken = try DevSetup.signIn(port: senderPort, user: "\(prefix)-a", device: "phone")
    let receiverToken = try DevSetup.signIn(
      port: receiverPort, user: "\(prefix)-b", device: "phone")
    let conversation = try DevSetup.createConversation(
      port: senderPort, token: senderToken, title: "B14", members: ["\(prefix)-b"])
    let sockets = try WebSocketLoad.open(
      count: 1, port: receiverPort, path: "/v1/live", name: "bench.nodes-fan-out",
      headers: { _ in ["Authorization": "Bearer \(receiverToken)"] })
    defer { sockets.close() }
    let path = "/v1/conversations/\(conversation)/messages"
    let warmUp = max(10, messages / 10)
    let (all, _, _) = try await onThread("bench.nodes-fan-out") {
      try FanOutFigure.drive(
        sockets: sockets, senderPort: senderPort, messages: warmUp + messages, warmUp: warmUp
      ) { index in
        let id = String(format: "00000000-0000-7000-8000-%012x", index)
        return try LoadRequest.make(
          .post, port: senderPort, path: path, token: senderToken,
          json: #"{"clientMessageId":"\#(id)","text":"across, number \#(index)"}"#)
      }
    }
    return all
  }

  /// `pgbench`'s rate of single-row inserts, one per transaction, on a fresh database.
  private static func pgbenchInserts(_ cluster: PostgresCluster, seconds: Int) throws -> Double {
    let database = try cluster.freshDatabase()
    let connection = try PostgresConnection(url: database)
    try connection.execute("CREATE TABLE bench_rows (k BIGINT NOT NULL, v TEXT NOT NULL)")
    connection.close()
    let script = NSTemporaryDirectory() + "chat-bench-pgbench-\(getpid()).sql"
    try "INSERT INTO bench_rows (k, v) VALUES (:client_id, repeat('x', 64));\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: script) }
    // With its own time limit ended by SIGALRM: `ChildProcess` starts it with none blocked.
    let process = try ChildProcess(
      "/usr/lib/postgresql/15/bin/pgbench",
      ["-n", "-c", "32", "-j", "2", "-T", String(seconds), "-f", script, database],
      output: .pipe, errors: .null)
    let text = String(decoding: process.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    guard process.wait() == .exited(0),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
      let tps = Double(line.dropFirst(6).prefix { $0 != " " })
    else {
      throw BenchError("pgbench failed: \(text.suffix(300))")
    }
    return tps
  }
}

/// A cluster `scripts/nats-local start` made: its URLs (for `--relay`) and its servers'
/// processes (for their CPU time).
struct NATSCluster {
  let urls: String
  let folder: String

  init(folder: String) throws {
    self.folder = folder
    urls = try clusterFile(folder, "urls", madeBy: "scripts/nats-local start")
  }

  func processes() -> [Int32] {
    (1...3).compactMap { number in
      (try? clusterFile(folder, "pid-\(number)", madeBy: "")).flatMap { Int32($0) }
    }
  }
}

/// The line in `folder/name` a local cluster script wrote, trimmed.
private func clusterFile(_ folder: String, _ name: String, madeBy script: String) throws -> String {
  guard
    let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  else {
    throw BenchError("\(folder)/\(name) is missing: start one with \(script)")
  }
  return text
}

/// A cluster `scripts/postgres-local start` made: its URL, fresh databases in it, and its
/// processes (for their CPU time).
struct PostgresCluster {
  let url: String
  let folder: String

  init(folder: String) throws {
    self.folder = folder
    url = try clusterFile(folder, "url", madeBy: "scripts/postgres-local start")
  }

  /// The URL of a new, empty database.
  func freshDatabase() throws -> String {
    let base = url[..<(url.lastIndex(of: "/") ?? url.endIndex)]
    let name = "bench_\(getpid())_\(UInt32.random(in: 0..<1_000_000_000))"
    let admin = try PostgresConnection(url: base + "/postgres")
    defer { admin.close() }
    try admin.execute("CREATE DATABASE \(name)")
    return base + "/" + name
  }

  /// The postmaster and its children now.
  func processes() -> [Int32] {
    guard
      let first = try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)
        .split(separator: "\n").first, let postmaster = Int32(first)
    else { return [] }
    var found = [postmaster]
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
      guard let pid = Int32(entry),
        let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // After "(comm)": state, then the parent's pid.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, Int32(fields[1]) == postmaster { found.append(pid) }
    }
    return found
  }
}
