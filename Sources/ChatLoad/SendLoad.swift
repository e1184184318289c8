import CEpoll
import Foundation
import Glibc
import Synchronization

/// Durable sends per second: `clients` signed-in users, each on its own keep-alive connection,
/// each sending the next message as soon as the previous one is answered (no pipelining), into
/// one-to-one conversations (client 2k and 2k+1 share one).
///
/// The generator is built to cost the server's machine little per request: each of `threads`
/// threads runs an epoll loop over its share of the connections, each request is a prebuilt
/// template with a fresh clientMessageId written in place, and a response is framed by its
/// status line and `Content-Length` only. `SendLoadReport.generatorCPUSeconds` says what it
/// used, so a run can show that it was not the bottleneck.
///
/// ```swift
/// let report = try SendLoad.run(SendLoadConfiguration(port: 8080))
/// print(report.summary)
/// ```
///
/// The server must be in dev mode (users sign in with `/v1/auth/dev-login`) with its rate limit
/// off (`--rate-limit off`), or most sends are answered 429.
public enum SendLoad {
  /// Signs the users in, creates their conversations, runs the load and reports.
  public static func run(_ configuration: SendLoadConfiguration) throws(LoadError)
    -> SendLoadReport
  {
    let loadBefore = loadAverage()
    let clients = try prepare(configuration)
    let acceptedBefore = try acceptedSends(configuration)

    let threadCount = max(1, min(configuration.threads, clients.count))
    let start = monotonicNanoseconds()
    let window = LoadWindow(
      start: start,
      measureFrom: start + configuration.warmup.nanoseconds,
      stopSendingAt: start + configuration.warmup.nanoseconds + configuration.duration.nanoseconds)
    let cpuProbe = CPUProbe(
      serverPIDs: configuration.serverPID.map { [$0] + configuration.otherServerPIDs } ?? [],
      databasePIDs: configuration.databasePIDs, at: window.measureFrom)
    let outcomes = Mutex<[Int: Result<LoopResult, LoadError>]>([:])
    var threads: [Thread] = []
    let done = DispatchGroup()
    for index in 0..<threadCount {
      let share = stride(from: index, to: clients.count, by: threadCount).map { clients[$0] }
      done.enter()
      let thread = Thread {
        defer { done.leave() }
        let outcome = Result { () throws(LoadError) -> LoopResult in
          try SendLoop(
            clients: share, configuration: configuration, window: window, seed: UInt64(index + 1)
          ).run(cpuProbe: index == 0 ? cpuProbe : nil)
        }
        outcomes.withLock { $0[index] = outcome }
      }
      thread.name = "chat-load.\(index)"
      threads.append(thread)
      thread.start()
    }
    done.wait()
    var merged = LoopResult()
    for outcome in outcomes.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
      merged.merge(try outcome.value.get())
    }
    let generatorCPU = processCPUSeconds() - cpuProbe.generatorAtStart
    let serverCPU = cpuProbe.serverSeconds()
    let databaseCPU = cpuProbe.databaseSeconds()
    let acceptedAfter = try acceptedSends(configuration)
    let windowSeconds = Double(window.stopSendingAt - window.measureFrom) / 1e9
    let latencies = merged.latencies.sorted()
    func percentile(_ p: Double) -> Double {
      guard !latencies.isEmpty else { return 0 }
      let index = min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.down)))
      return Double(latencies[index]) / 1e6
    }
    return SendLoadReport(
      clients: clients.count, threads: threadCount, seconds: windowSeconds,
      accepted: merged.acceptedInWindow, statuses: merged.statuses,
      sendsPerSecond: Double(merged.acceptedInWindow) / windowSeconds,
      latencyMilliseconds: LatencySummary(
        p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99),
        max: latencies.last.map { Double($0) / 1e6 } ?? 0),
      generatorCPUSeconds: generatorCPU, serverCPUSeconds: serverCPU,
      databaseCPUSeconds: databaseCPU,
      totalAccepted: merged.acceptedTotal,
      serverAcceptedDelta: zip(acceptedBefore, acceptedAfter).map { $1 - $0 },
      loadAverage: [loadBefore, loadAverage()].compactMap { $0 })
  }

  /// One signed-in client with its conversation, and the node it posts to.
  struct Client {
    let token: String
    let conversation: String
    let port: Int
  }

  static func prepare(_ configuration: SendLoadConfiguration) throws(LoadError) -> [Client] {
    let http = try BlockingHTTPClient(host: configuration.host, port: configuration.port)
    let run = configuration.userPrefix
    var tokens: [String] = []
    for index in 0..<configuration.clients {
      let token = try DevSetup.signIn(http, user: "\(run)\(index)", device: "load")
      tokens.append(token)
    }
    let ports = configuration.ports
    var clients: [Client] = []
    var index = 0
    while index < tokens.count {
      let partner = index + 1 < tokens.count ? ["\(run)\(index + 1)"] : []
      let id = try DevSetup.createConversation(
        http, token: tokens[index], title: "load", members: partner)
      clients.append(
        Client(token: tokens[index], conversation: id, port: ports[index % ports.count]))
      if index + 1 < tokens.count {
        clients.append(
          Client(
            token: tokens[index + 1], conversation: id, port: ports[(index + 1) % ports.count]))
      }
      index += 2
    }
    return clients
  }

  /// `chat_sends_accepted_total` from `/metrics`, summed over the nodes, as a one-element
  /// array (empty when a node does not say).
  static func acceptedSends(_ configuration: SendLoadConfiguration) throws(LoadError) -> [Int] {
    var total = 0
    for port in configuration.ports {
      let http = try BlockingHTTPClient(host: configuration.host, port: port)
      let response = try http.request("GET", "/metrics")
      let counted = response.text.split(separator: "\n").first {
        $0.hasPrefix("chat_sends_accepted_total ")
      }
      guard let value = counted.flatMap({ Int($0.split(separator: " ").last ?? "") }) else {
        return []
      }
      total += value
    }
    return [total]
  }

}

/// When the run starts, measures, and stops sending (monotonic nanoseconds).
struct LoadWindow: Sendable {
  let start: Int64
  let measureFrom: Int64
  let stopSendingAt: Int64
}

/// Takes the CPU readings at the start of the measured window, from the first loop's thread.
final class CPUProbe: @unchecked Sendable {
  // @unchecked: written once by the first loop's thread before `done` is signalled, read by
  // the caller only after `DispatchGroup.wait()` (which orders the accesses).
  let serverPIDs: [Int32]
  let databasePIDs: [Int32]
  let at: Int64
  var generatorAtStart = 0.0
  var serverAtStart: Double?
  var databaseAtStart: Double?
  var taken = false

  init(serverPIDs: [Int32], databasePIDs: [Int32], at: Int64) {
    self.serverPIDs = serverPIDs
    self.databasePIDs = databasePIDs
    self.at = at
    generatorAtStart = processCPUSeconds()
  }

  func takeIfDue(now: Int64) {
    guard !taken, now >= at else { return }
    taken = true
    generatorAtStart = processCPUSeconds()
    serverAtStart = Self.total(serverPIDs)
    databaseAtStart = Self.total(databasePIDs)
  }

  /// The servers' CPU seconds since `takeIfDue`; nil without pids.
  func serverSeconds() -> Double? {
    guard let start = serverAtStart, let end = Self.total(serverPIDs) else { return nil }
    return end - start
  }

  /// The database's CPU seconds since `takeIfDue`; nil without pids.
  func databaseSeconds() -> Double? {
    guard let start = databaseAtStart, let end = Self.total(databasePIDs) else { return nil }
    return end - start
  }

  /// The CPU seconds of `pids` together; nil when there are none or one cannot be read.
  private static func total(_ pids: [Int32]) -> Double? {
    guard !pids.isEmpty else { return nil }
    var sum = 0.0
    for pid in pids {
      guard let seconds = processCPUSeconds(pid: pid) else { return nil }
      sum += seconds
    }
    return sum
  }
}

/// What one loop counted.
struct LoopResult {
  var statuses: [String: Int] = [:]
  var acceptedInWindow = 0
  var acceptedTotal = 0
  /// Nanoseconds per answered request inside the window.
  var latencies: [Int64] = []

  mutating func merge(_ other: LoopResult) {
    statuses.merge(other.statuses, uniquingKeysWith: +)
    acceptedInWindow += other.acceptedInWindow
    acceptedTotal += other.acceptedTotal
    latencies += other.latencies
  }
}
