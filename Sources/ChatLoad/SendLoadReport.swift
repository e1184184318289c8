import Foundation

/// What to run. Defaults: 100 clients, 2 s of warm-up, then 10 s measured.
public struct SendLoadConfiguration: Sendable {
  public var host: String
  public var port: Int
  /// Concurrent clients: users, each with one keep-alive connection.
  public var clients: Int
  /// Sends before the measurement starts (connections, caches, SQLite pages warm up).
  public var warmup: Duration
  /// The measured time.
  public var duration: Duration
  /// Generator threads (Wire loops); one is plenty for ~20,000 requests a second.
  public var threads: Int
  /// Bytes of each message's text (ASCII).
  public var textBytes: Int
  /// The server's process id, to report its CPU time (Linux `/proc`); nil when unknown.
  public var serverPID: Int32?
  /// More nodes of the same database (`chat-server --database`): client `i` uses node
  /// `i % (1 + otherPorts.count)`, `port` being node 0, so the two users of a conversation
  /// are on two nodes.
  public var otherPorts: [Int] = []
  /// Their process ids, counted with `serverPID` in `serverCPUSeconds`.
  public var otherServerPIDs: [Int32] = []
  /// The database's processes (PostgreSQL's postmaster and its children), for
  /// `databaseCPUSeconds`.
  public var databasePIDs: [Int32] = []
  /// The relay's processes (the NATS servers of `chat-server --relay`), for
  /// `relayCPUSeconds`.
  public var relayPIDs: [Int32] = []

  /// Every node's port, node 0 first.
  public var ports: [Int] { [port] + otherPorts }
  /// User ids are this prefix and a number; a fresh prefix per run keeps runs apart.
  public var userPrefix: String

  public init(
    host: String = "127.0.0.1", port: Int, clients: Int = 100, warmup: Duration = .seconds(2),
    duration: Duration = .seconds(10), threads: Int = 1, textBytes: Int = 64,
    serverPID: Int32? = nil, userPrefix: String? = nil
  ) {
    self.host = host
    self.port = port
    self.clients = clients
    self.warmup = warmup
    self.duration = duration
    self.threads = threads
    self.textBytes = textBytes
    self.serverPID = serverPID
    self.userPrefix = userPrefix ?? "load\(UInt32.random(in: 0..<100_000))-"
  }
}

/// Percentiles of the time from writing a request to reading its whole response.
public struct LatencySummary: Sendable, Codable, Equatable {
  public var p50: Double
  public var p90: Double
  public var p99: Double
  public var max: Double
}

/// The outcome of a `SendLoad` run.
public struct SendLoadReport: Sendable, Codable {
  public var clients: Int
  public var threads: Int
  /// The measured window.
  public var seconds: Double
  /// 201 answers completed inside the window.
  public var accepted: Int
  /// Every answer's status, warm-up included ("201": n, "429": n, …).
  public var statuses: [String: Int]
  /// `accepted / seconds`: the figure.
  public var sendsPerSecond: Double
  public var latencyMilliseconds: LatencySummary
  /// CPU seconds the generator used in the window (all its threads).
  public var generatorCPUSeconds: Double
  /// CPU seconds the server used in the window, when its pid was given (every node's).
  public var serverCPUSeconds: Double?
  /// CPU seconds the database's processes used in the window, when their pids were given.
  public var databaseCPUSeconds: Double?
  /// CPU seconds the relay's processes used in the window, when their pids were given.
  public var relayCPUSeconds: Double? = nil
  /// 201 answers over the whole run, warm-up included.
  public var totalAccepted: Int
  /// The server's own count of new messages over the run (`chat_sends_accepted_total`), to
  /// compare with `totalAccepted`; empty when its `/metrics` did not say.
  public var serverAcceptedDelta: [Int]
  /// The machine's 1-minute load average (`/proc/loadavg`) before and after the run: on a
  /// shared machine, other work takes cores from the server, and this says how much.
  public var loadAverage: [Double]

  /// Every answer was a 201 and the server counted exactly the messages this run saw accepted.
  public var isClean: Bool {
    statuses.keys.allSatisfy { $0 == "201" }
      && (serverAcceptedDelta.isEmpty || serverAcceptedDelta == [totalAccepted])
  }

  /// A human summary, a few lines.
  public var summary: String {
    var lines = [
      String(
        format: "%d durable sends/s (%d accepted in %.2f s; %d clients, %d generator thread%@)",
        Int(sendsPerSecond.rounded()), accepted, seconds, clients, threads,
        threads == 1 ? "" : "s"),
      String(
        format: "latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f", latencyMilliseconds.p50,
        latencyMilliseconds.p90, latencyMilliseconds.p99, latencyMilliseconds.max),
      String(
        format: "generator CPU: %.2f s = %.0f%% of one core", generatorCPUSeconds,
        100 * generatorCPUSeconds / seconds),
    ]
    if let serverCPUSeconds {
      lines.append(
        String(
          format: "server CPU: %.2f s = %.0f%% of one core", serverCPUSeconds,
          100 * serverCPUSeconds / seconds))
    }
    if let databaseCPUSeconds {
      lines.append(
        String(
          format: "database CPU: %.2f s = %.0f%% of one core", databaseCPUSeconds,
          100 * databaseCPUSeconds / seconds))
    }
    let statusText = statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
    lines.append("statuses: " + statusText.joined(separator: ", "))
    if loadAverage.count == 2 {
      lines.append(
        String(
          format: "machine load average (1 min): %.2f before, %.2f after", loadAverage[0],
          loadAverage[1]))
    }
    if let delta = serverAcceptedDelta.first {
      lines.append(
        "server counted \(delta) new messages; this run saw \(totalAccepted) accepted"
          + (delta == totalAccepted ? " (equal)" : " (DIFFERENT)"))
    }
    return lines.joined(separator: "\n")
  }
}
