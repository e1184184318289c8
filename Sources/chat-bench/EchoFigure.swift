import ChatLoad
import Foundation
import Glibc

/// B8: WebSocket echo, our server (Wire) next to a peer (Node.js `ws`), each in a process of
/// its own, under the same load generator (`WebSocketLoad`, one Wire loop in this process):
/// `connections` sockets open, each sending a 64-byte text message as soon as the last came
/// back; and the server's resident memory per idle connection (VmRSS with the connections open
/// and idle, less VmRSS before, over the count). The two servers take turns, round by round.
enum EchoFigure {
  typealias Server = ServerProcess

  struct Measurement {
    var echo: WebSocketLoad.EchoResult
    var bytesPerConnection: Double
    var serverCoreShare: Double
  }

  static func run(connections: Int, seconds: Int64, rounds: Int, withPeer: Bool) async throws
    -> ([ResultRow], [String], [String])
  {
    var rows: [ResultRow] = []
    var notes: [String] = []
    var skipped: [String] = []
    var peerAvailable = false
    if withPeer {
      if let peer = try startPeer() {
        stop(peer)
        peerAvailable = true
      } else {
        skipped.append(
          "B8 peer: Node.js with the `ws` module not found (apt-get install -y node-ws)")
      }
    } else {
      skipped.append("B8 peer: --quick skips the Node.js `ws` peer (needs node-ws)")
    }
    // The servers take turns, round by round, in alternating order, so a change in the rest of
    // the machine's load falls on both; each round is a fresh process with fresh connections.
    var oursRounds: [Measurement] = []
    var peerRounds: [Measurement] = []
    var peerName = "peer"
    for round in 0..<rounds {
      let peerFirst = peerAvailable && round % 2 == 1
      for turn in 0..<2 {
        if (turn == 0) != peerFirst {
          let ours = try start(
            name: "ours", executable: executablePath(), arguments: ["echo-server"],
            environment: [:])
          oursRounds.append(try await measure(ours, connections: connections, seconds: seconds))
          stop(ours)
        } else if peerAvailable, let peer = try startPeer() {
          peerName = peer.name
          peerRounds.append(try await measure(peer, connections: connections, seconds: seconds))
          stop(peer)
        }
      }
    }
    let oursResult = combine(oursRounds)
    let peerResult = peerRounds.isEmpty ? nil : combine(peerRounds)
    let workload =
      "\(Report.grouped(connections)) connections, 64-byte messages, one in flight each"
    var echoRow = ResultRow(
      figure: "B8", name: "WebSocket echo, ours (Wire)",
      workload: workload + ", \(rounds) × \(seconds) s",
      unit: .perSecond, median: oursResult.echo.throughput, p99: nil,
      samples: oursResult.echo.echoes, baselineName: peerResult.map { _ in peerName },
      baseline: peerResult?.echo.throughput,
      ratio: peerResult.map { oursResult.echo.throughput / $0.echo.throughput },
      target: "faster than the peer",
      met: peerResult.map { oursResult.echo.throughput > $0.echo.throughput },
      note: "echoes per second: the median of the rounds (fresh processes, servers alternating)")
    echoRow.details = details(oursResult)
    rows.append(echoRow)
    if let peerResult {
      var row = ResultRow(
        figure: "B8", name: "baseline: WebSocket echo, \(peerName)", workload: workload,
        unit: .perSecond, median: peerResult.echo.throughput, p99: nil,
        samples: peerResult.echo.echoes, target: "")
      row.details = details(peerResult)
      rows.append(row)
    }
    let perConnection = oursResult.bytesPerConnection / 1024
    rows.append(
      ResultRow(
        figure: "B8", name: "memory per idle connection, ours",
        workload: "\(Report.grouped(connections)) idle WebSockets", unit: .kibibytes,
        median: perConnection, p99: nil, samples: connections,
        baselineName: peerResult.map { _ in peerName },
        baseline: peerResult.map { $0.bytesPerConnection / 1024 },
        ratio: peerResult.map { oursResult.bytesPerConnection / $0.bytesPerConnection },
        target: "≤ 8 KiB", met: perConnection <= 8,
        note: "(VmRSS open − VmRSS before) / connections, server process"))
    for (name, result) in [("ours", oursResult)] + (peerResult.map { [(peerName, $0)] } ?? []) {
      notes.append(
        String(
          format: "B8 %@: during the echo window the generator thread used %.0f%% of one core "
            + "and the server process %.0f%% of one core (the machine has 2)",
          name, result.echo.cpuShare * 100, result.serverCoreShare * 100))
    }
    return (rows, notes, skipped)
  }

  static func measure(_ server: Server, connections: Int, seconds: Int64) async throws
    -> Measurement
  {
    let pid = server.process.pid
    // Warm the server up with a few connections, then let it settle before the reading.
    let warm = try WebSocketLoad.open(
      count: 100, port: server.port, path: "/echo", name: "bench.echo-load")
    _ = try await warm.echo(
      payload: Array(repeating: 0x61, count: 64), warmUp: 0, duration: 300_000_000)
    warm.close()
    try await Task.sleep(for: .milliseconds(500))
    guard let before = Memory.read(pid: "\(pid)") else { throw BenchError("no /proc for \(pid)") }
    let sockets = try WebSocketLoad.open(
      count: connections, port: server.port, path: "/echo", name: "bench.echo-load")
    defer { sockets.close() }
    try await Task.sleep(for: .seconds(1))
    guard let open = Memory.read(pid: "\(pid)") else { throw BenchError("no /proc for \(pid)") }
    let payload = Array("chat-bench echo payload: 64 bytes of text, no more, no less!!!!".utf8)
    let cpuBefore = CPUTime.process(pid) ?? 0
    let started = Nanos.now()
    let echo = try await sockets.echo(
      payload: payload, warmUp: 1_000_000_000, duration: seconds * 1_000_000_000)
    let serverShare =
      Double((CPUTime.process(pid) ?? 0) - cpuBefore) / Double(Nanos.now() - started)
    progress(
      String(
        format: "B8 %@: %.0f echoes/s, %.2f KiB per idle connection", server.name,
        echo.throughput, Double(open.rssKiB - before.rssKiB) / Double(connections)))
    return Measurement(
      echo: echo,
      bytesPerConnection: Double((open.rssKiB - before.rssKiB) * 1024)
        / Double(connections), serverCoreShare: serverShare)
  }

  /// The round with the median throughput, with the slowest and fastest noted; memory per
  /// connection is the median over the rounds.
  /// The details of an echo row: core shares, the spread of the rounds, round-trip times.
  static func details(_ result: Measurement) -> [String: Double] {
    [
      "serverCoreShare": result.serverCoreShare,
      "generatorCoreShare": result.echo.cpuShare, "slowestRound": result.echo.slowest,
      "fastestRound": result.echo.fastest,
      "roundTripP50ms": Double(result.echo.latencies.median) / 1e6,
      "roundTripP99ms": Double(result.echo.latencies.p99) / 1e6,
    ]
  }

  static func combine(_ rounds: [Measurement]) -> Measurement {
    let sorted = rounds.sorted { $0.echo.throughput < $1.echo.throughput }
    var median = sorted[sorted.count / 2]
    median.echo.slowest = sorted.first?.echo.throughput ?? 0
    median.echo.fastest = sorted.last?.echo.throughput ?? 0
    let memory = rounds.map(\.bytesPerConnection).sorted()
    median.bytesPerConnection = memory[memory.count / 2]
    return median
  }

  /// Starts a server process that prints `port N` and runs until its standard input closes.
  static func start(
    name: String, executable: String, arguments: [String], environment: [String: String]
  ) throws -> Server {
    try ServerProcess.start(
      name: name, executable: executable, arguments: arguments, environment: environment)
  }

  static func stop(_ server: Server) {
    server.stop()
  }

  /// The Node.js `ws` echo server, or nil when node or the module is missing.
  static func startPeer() throws -> Server? {
    let candidates = ["/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node"]
    guard let node = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else { return nil }
    let script = NSTemporaryDirectory() + "chat-bench-ws-echo-\(getpid()).js"
    try peerScript.write(toFile: script, atomically: true, encoding: .utf8)
    defer { unlink(script) }
    let check = try ChildProcess(
      node, ["-e", "require('ws')"],
      environment: ["NODE_PATH": "/usr/share/nodejs:/usr/lib/nodejs"],
      errors: .null)
    guard check.wait() == .exited(0) else { return nil }
    let version =
      (try? String(contentsOfFile: "/usr/share/nodejs/ws/package.json", encoding: .utf8))
      .flatMap { $0.split(separator: "\"").drop { $0 != "version" }.dropFirst(2).first }
      .map(String.init) ?? "?"
    return try start(
      name: "Node.js ws \(version)", executable: node, arguments: [script],
      environment: ["NODE_PATH": "/usr/share/nodejs:/usr/lib/nodejs"])
  }

  /// The peer: the `ws` package's own echo, without compression (as ours), on a free port.
  static let peerScript = """
    const { WebSocketServer } = require('ws');
    const server = new WebSocketServer({
      host: '127.0.0.1', port: 0, path: '/echo', perMessageDeflate: false, clientTracking: false,
      backlog: 4096,
    });
    server.on('connection', (socket) => {
      socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
    });
    server.on('listening', () => console.log('port ' + server.address().port));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
    """
}
