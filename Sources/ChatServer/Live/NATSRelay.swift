import NATS
import Support
import Synchronization
import Wire

/// Live events between the `chat-server` nodes of one database through a NATS cluster
/// (`chat-server --relay nats://…`), instead of PostgreSQL's `NOTIFY`: the database does none
/// of the relaying (no notification queue, no lock at each commit), and nodes and NATS
/// servers add up separately.
///
/// Every event and revoked family goes on the subject `chat.live` in `RelayPayload`'s form,
/// whatever its size (NATS carries up to its `max_payload`, 1 MiB by default); the client asks
/// the server not to echo a node's own messages back to it. One `NATSClient` (a thread of its
/// own) publishes in order and hears the other nodes' in order.
///
/// NATS delivers at most once: a node whose connection ended (a server killed, cut off, or
/// one that dropped it as a slow consumer) may have missed events, and so may the other nodes
/// when a server died with this node's last messages in it. So each message is numbered by
/// its node (`<number> ` before the payload), and a node that finds a number skipped, or was
/// connected again (to the same server or another of the cluster), says so
/// (`relayResumed`): it closes its live sockets and wakes its long polls, and each client
/// catches up from the last sequence it holds, as after any drop; every `heartbeatInterval`
/// a node sends its last number again, so that its last messages lost are noticed too. What
/// this node publishes while away waits in the client and goes out in order once connected.
/// Nothing acknowledged depends on the relay: the items are in the database first.
public final class NATSRelay: LiveRelay {
  static let subject = "chat.live"

  let client: NATSClient
  /// This node's id in each message, to skip its own.
  let node: String
  let log: any LogSink
  private let service = Mutex<ChatService?>(nil)
  /// The number of this node's last message; taken and published under the lock, so the
  /// numbers go out in order.
  private let published = Mutex<UInt64>(0)
  private let heard = Mutex(RelaySequence())
  /// The connection to the cluster ended, or could not be made, at least once.
  private let lost = Mutex(false)
  static let resumeDelay = Duration.milliseconds(100)
  /// A heartbeat is `<number> <node> hb`: the node's last number, which it does not take.
  static let heartbeat = " hb"
  static let heartbeatInterval = Duration.seconds(2)
  private let beating = Mutex<Task<Void, Never>?>(nil)

  /// A relay through the servers of `urls` (each `nats://host:port` or `tls://host:port`);
  /// throws when one is not such a URL.
  public init(urls: [String], tls: TLSContext? = nil, log: any LogSink) throws(RelayError) {
    var servers: [NATSServerURL] = []
    for text in urls {
      guard let url = NATSServerURL(text) else { throw RelayError.badURL(text) }
      servers.append(url)
    }
    guard !servers.isEmpty else { throw RelayError.badURL("") }
    var random = SystemRandomNumberGenerator()
    node = String(random.next(), radix: 36)
    var configuration = NATSClient.Configuration(
      servers: servers, name: "chat-server \(node)", subjects: [Self.subject])
    configuration.tls = tls
    do {
      client = try NATSClient(configuration, loopName: "chat-server.relay-nats")
    } catch {
      throw RelayError.cannotStart("\(error)")
    }
    self.log = log
  }

  public func start(delivering service: ChatService) {
    self.service.withLock { $0 = service }
    let node = node
    let log = log
    client.onMessage = { [weak self] _, bytes in
      guard let self else { return }
      let text = String(decoding: bytes, as: UTF8.self)
      guard let space = text.firstIndex(of: " "), let number = UInt64(text[..<space]) else {
        return
      }
      let payload = String(text[text.index(after: space)...])
      let sender = String(payload.prefix { $0 != " " })
      let isHeartbeat = payload == sender + Self.heartbeat
      switch heard.withLock({ $0.heard(from: sender, number: number, heartbeat: isHeartbeat) }) {
      case .next: break
      case .stale: return  // An old message a server let go late: its gap was resumed.
      case .skipped:
        log.write(LogRecord(.warning, "relay_skipped", [("node", sender)]))
        deliver { await $0.relayResumed() }
      }
      switch RelayPayload.parse(payload, at: node) {
      case .event(let event): deliver { await $0.deliverRelayed(event) }
      case .revocation(let revocation): deliver { await $0.revokedElsewhere(revocation) }
      case .row, nil: break
      }
    }
    client.onConnected = { [weak self] again, server in
      guard let self else { return }
      let lostBefore = lost.withLock { $0 }
      log.write(
        LogRecord(again || lostBefore ? .warning : .info, "relay_connected", [("server", server)]))
      // A node that starts with the cluster up has missed nothing.
      guard again || lostBefore else { return }
      // What was missed while away is this resume's: each node's count starts again at the
      // first number heard from it. The resume waits `resumeDelay`, longer than the cluster
      // takes to learn of the new subscription, so that an event lost in that moment is
      // older than the catch-up the resume sets off.
      heard.withLock { $0.forgetCounts() }
      Task { [weak self] in
        try? await Task.sleep(for: Self.resumeDelay)
        log.write(LogRecord(.warning, "relay_resumed", []))
        self?.deliver { await $0.relayResumed() }
      }
    }
    client.onDisconnected = { [weak self] reason in
      self?.lost.withLock { $0 = true }
      log.write(LogRecord(.warning, "relay_disconnected", [("reason", reason)]))
    }
    client.start()
    beating.withLock {
      $0 = Task { [weak self] in
        while !Task.isCancelled {
          try? await Task.sleep(for: Self.heartbeatInterval)
          guard let self else { return }
          self.beat()
        }
      }
    }
  }

  public func stop() {
    service.withLock { $0 = nil }
    beating.withLock { $0?.cancel() }
    client.stop()
  }

  /// This node's last number, again: a node that lost another's last messages learns of it
  /// within `heartbeatInterval` even when that node has nothing more to say.
  private func beat() {
    published.withLock { number in
      client.publish(Self.subject, Array("\(number) \(node)\(Self.heartbeat)".utf8))
    }
  }

  public func forward(_ event: RelayedEvent) {
    publish(RelayPayload.payload(of: event, from: node))
  }

  public func forward(_ revocation: RelayedRevocation) {
    publish(RelayPayload.payload(of: revocation, from: node))
  }

  private func publish(_ payload: String) {
    published.withLock { number in
      number += 1
      client.publish(Self.subject, Array("\(number) \(payload)".utf8))
    }
  }

  /// Runs `body` on the service's executor, in the order called (one job each, FIFO).
  private func deliver(_ body: @escaping @Sendable (ChatService) async -> Void) {
    guard let service = service.withLock({ $0 }) else { return }
    service.executor.spawn { await body(service) }
  }
}

/// The number of the last message heard from each node: a number past the next one means
/// messages were lost on the way; one not past the last is an old message come late (a
/// server stopped and let go again). The first heard from a node, or the first after
/// `forgetCounts`, starts its count; a count only moves forward.
struct RelaySequence: Sendable {
  enum Verdict: Equatable {
    /// The next one, or the first: deliver it.
    case next
    /// Numbers before it were lost: deliver it, and resume.
    case skipped
    /// Not past the last: drop it.
    case stale
  }

  private var last: [String: UInt64] = [:]
  /// Nodes whose next number starts their count again (after a reconnect), with the number
  /// they had reached: an older one is still stale.
  private var restarting: [String: UInt64] = [:]

  /// A message numbered `number`, or a heartbeat carrying `node`'s last number (which is the
  /// last heard when nothing was lost: `.next`; past it: `.skipped`).
  mutating func heard(from node: String, number: UInt64, heartbeat: Bool = false) -> Verdict {
    if let floor = restarting.removeValue(forKey: node) {
      guard number > floor || (heartbeat && number == floor) else {
        restarting[node] = floor
        return .stale
      }
      last[node] = number
      return .next
    }
    guard let previous = last[node] else {
      last[node] = number
      return .next
    }
    if heartbeat && number == previous { return .next }
    guard number > previous else { return .stale }
    last[node] = number
    return number == previous + (heartbeat ? 0 : 1) ? .next : .skipped
  }

  /// After a reconnect (whose resume covers what was missed): the next number from each node
  /// known so far starts its count, whatever it is.
  mutating func forgetCounts() {
    for (node, number) in last { restarting[node] = max(restarting[node] ?? 0, number) }
  }
}

/// Why a relay could not be made.
public enum RelayError: Error, Equatable, CustomStringConvertible {
  case badURL(String)
  case cannotStart(String)

  public var description: String {
    switch self {
    case .badURL(let text):
      "--relay takes nats://host:port or tls://host:port (comma-separated): \(text.isEmpty ? "none given" : text)"
    case .cannotStart(let reason): "the relay cannot start: \(reason)"
    }
  }
}
