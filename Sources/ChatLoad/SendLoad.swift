import Foundation
import Support
import Wire

/// Durable sends per second: `clients` signed-in users, each on its own keep-alive connection,
/// each sending the next message as soon as the previous one is answered (no pipelining), into
/// one-to-one conversations (client 2k and 2k+1 share one).
///
/// The load runs through Wire (``ClosedLoop``: `threads` event loops over their share of the
/// connections, responses decoded by Wire's parser), and is built to cost the server's machine
/// little per request: each request is a prebuilt template with a fresh clientMessageId written
/// in place. `SendLoadReport.generatorCPUSeconds` says what it used, so a run can show that it
/// was not the bottleneck.
///
/// ```swift
/// let report = try SendLoad.run(SendLoadConfiguration(port: 8080))
/// print(report.summary)
/// ```
///
/// The server must be in dev mode (users sign in with `/v1/auth/dev-login`) with its rate limit
/// off (`--rate-limit off`), or most sends are answered 429.
public enum SendLoad {
  /// Signs the users in, creates their conversations, runs the load and reports. Blocks the
  /// calling thread.
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
      databasePIDs: configuration.databasePIDs, relayPIDs: configuration.relayPIDs,
      at: window.measureFrom)
    var random = SplitMix64(seed: UInt64(bitPattern: monotonicNanoseconds()))
    let host = numericHost(configuration.host)
    var loadClients: [ClosedLoop.Client] = []
    for client in clients {
      let template = try SendTemplate(
        host: host, client: client, textBytes: configuration.textBytes, idPrefix: random.next())
      loadClients.append(
        ClosedLoop.Client(host: host, port: client.port, method: .post) { template.next($0) })
    }
    let loops = try ClosedLoop.run(
      loadClients, threads: threadCount, name: "chat-load",
      giveUpAt: window.stopSendingAt + 30_000_000_000
    ) { index in SendRecorder(window: window, cpuProbe: index == 0 ? cpuProbe : nil) }
    var merged = LoopResult()
    for loop in loops { merged.merge(loop.recorder.result) }
    let generatorCPU = processCPUSeconds() - cpuProbe.generatorAtStart
    let serverCPU = cpuProbe.serverSeconds()
    let databaseCPU = cpuProbe.databaseSeconds()
    let relayCPU = cpuProbe.relaySeconds()
    let acceptedAfter = try acceptedSends(configuration)
    let windowSeconds = Double(window.stopSendingAt - window.measureFrom) / 1e9
    let latencies = merged.latencies.sorted()
    func percentile(_ p: Double) -> Double {
      guard !latencies.isEmpty else { return 0 }
      let index = min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.down)))
      return Double(latencies[index]) / 1e6
    }
    var report = SendLoadReport(
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
    report.relayCPUSeconds = relayCPU
    return report
  }

  /// One signed-in client with its conversation, and the node it posts to.
  struct Client {
    let token: String
    let conversation: String
    let port: Int
  }

  static func prepare(_ configuration: SendLoadConfiguration) throws(LoadError) -> [Client] {
    let http = try SetupClient(host: configuration.host, port: configuration.port)
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
      let http = try SetupClient(host: configuration.host, port: port)
      let response = try http.request(.get, "/metrics")
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
  // @unchecked: written once by the first loop's thread before that loop's share ends, read by
  // the caller only after `ClosedLoop.run` returns (whose wait orders the accesses).
  let serverPIDs: [Int32]
  let databasePIDs: [Int32]
  let relayPIDs: [Int32]
  let at: Int64
  var generatorAtStart = 0.0
  var serverAtStart: Double?
  var databaseAtStart: Double?
  var relayAtStart: Double?
  var taken = false

  init(serverPIDs: [Int32], databasePIDs: [Int32], relayPIDs: [Int32], at: Int64) {
    self.serverPIDs = serverPIDs
    self.databasePIDs = databasePIDs
    self.relayPIDs = relayPIDs
    self.at = at
    generatorAtStart = processCPUSeconds()
  }

  func takeIfDue(now: Int64) {
    guard !taken, now >= at else { return }
    taken = true
    generatorAtStart = processCPUSeconds()
    serverAtStart = Self.total(serverPIDs)
    databaseAtStart = Self.total(databasePIDs)
    relayAtStart = Self.total(relayPIDs)
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

  /// The relay's CPU seconds since `takeIfDue`; nil without pids.
  func relaySeconds() -> Double? {
    guard let start = relayAtStart, let end = Self.total(relayPIDs) else { return nil }
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

/// What one loop of the load counts, on its thread: every status, the 201s in the window and
/// their latencies; and, on the first loop, the CPU readings when the window starts.
final class SendRecorder: LoadRecorder, @unchecked Sendable {
  // @unchecked: used on its loop's thread during the run, read by the caller only after it.
  let window: LoadWindow
  let cpuProbe: CPUProbe?
  private(set) var result = LoopResult()

  init(window: LoadWindow, cpuProbe: CPUProbe?) {
    self.window = window
    self.cpuProbe = cpuProbe
    result.latencies.reserveCapacity(200_000)
  }

  func record(client: Int, status: Int, sentAt: Int64, answeredAt: Int64) -> Bool {
    cpuProbe?.takeIfDue(now: answeredAt)
    result.statuses[String(status), default: 0] += 1
    if status == 201 {
      result.acceptedTotal += 1
      if answeredAt >= window.measureFrom && answeredAt <= window.stopSendingAt {
        result.acceptedInWindow += 1
        result.latencies.append(answeredAt - sentAt)
      }
    }
    return answeredAt < window.stopSendingAt
  }
}

/// One client's send, prebuilt by Wire's request writer: a fresh clientMessageId (a per-client
/// prefix, then a counter, as a UUID) is written in place for each send.
final class SendTemplate: @unchecked Sendable {
  // @unchecked: used only on its client's loop thread, by one closed-loop client.
  private var bytes: [UInt8]
  /// Where the clientMessageId's 36 characters start.
  private let idOffset: Int
  private let idPrefix: UInt64

  init(host: String, client: SendLoad.Client, textBytes: Int, idPrefix: UInt64)
    throws(LoadError)
  {
    let placeholder = String(repeating: "0", count: 36)
    let text = String(repeating: "x", count: textBytes)
    let body = #"{"clientMessageId":"\#(placeholder)","text":"\#(text)"}"#
    bytes = try LoadRequest.make(
      .post, host: host, port: client.port,
      path: "/v1/conversations/\(client.conversation)/messages", token: client.token, json: body)
    idOffset = bytes.count - body.utf8.count + #"{"clientMessageId":""#.utf8.count
    self.idPrefix = idPrefix
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// The request with the `count`-th clientMessageId of this client.
  func next(_ count: Int) -> [UInt8] {
    let high = idPrefix
    let low = UInt64(count + 1)
    bytes.withUnsafeMutableBufferPointer { bytes in
      var position = idOffset
      // 32 hex digits: the prefix, then the counter; dashes after 8, 12, 16 and 20 digits.
      for digit in 0..<32 {
        if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
          bytes[position] = UInt8(ascii: "-")
          position += 1
        }
        let value = digit < 16 ? high >> (60 - 4 * digit) : low >> (60 - 4 * (digit - 16))
        bytes[position] = Self.hexDigits[Int(value & 0xF)]
        position += 1
      }
    }
    return bytes
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
