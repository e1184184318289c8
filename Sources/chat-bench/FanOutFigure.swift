import ChatLoad
import Foundation
import Glibc
import Wire

/// B7: fan-out. One message to a 256-member group whose 256 members all hold a live socket:
/// the time from writing the POST until the message event has arrived on every one of the 256
/// sockets (the figure), and on each socket (in the details). One message at a time, 2 ms
/// apart. The sockets are Wire client channels on one loop of their own (`WebSocketLoad`), which
/// stamps a frame when the loop reads it.
///
/// With `stalled` (the second row: 50), that many members' sockets stop reading after the
/// upgrade (`StalledReaders`, a phone in a lift): the figure is the time until every socket
/// that reads has the message, which a server that let stalled sockets hold up the others
/// would lengthen.
enum FanOutFigure {
  static let members = 256
  /// The second row's members whose sockets do not read.
  static let stalledMembers = 50

  static func run(server: BenchServer, messages: Int, stalled: Int = 0) async throws -> ResultRow {
    let prefix = stalled == 0 ? "g" : "s"
    var tokens: [String] = []
    for member in 0..<members { tokens.append(try await server.signIn("\(prefix)\(member)")) }
    let group = try await server.createConversation(
      token: tokens[0], title: "B7", members: (1..<members).map { "\(prefix)\($0)" })
    let readers = members - stalled
    let sockets = try WebSocketLoad.open(
      count: readers, port: server.port, path: "/v1/live", name: "bench.fan-out",
      headers: { ["Authorization": "Bearer \(tokens[$0])"] })
    defer { sockets.close() }
    let stalledReaders = try StalledReaders(port: server.port, tokens: Array(tokens[readers...]))
    defer { stalledReaders.close() }
    let path = "/v1/conversations/\(group)/messages"
    let token = tokens[0]
    let port = server.port
    let warmUp = max(20, messages / 10)
    let outcome = try await onThread("bench.fan-out") {
      try drive(
        sockets: sockets, senderPort: port, messages: warmUp + messages, warmUp: warmUp
      ) { index in
        let id = String(format: "00000000-0000-7000-8000-%012x", index)
        return try LoadRequest.make(
          .post, port: port, path: path, token: token,
          json: #"{"clientMessageId":"\#(id)","text":"to all of you, number \#(index)"}"#)
      }
    }
    let (all, each, cpuShare) = outcome
    let who = stalled == 0 ? "all 256 sockets" : "the \(readers) sockets that read"
    progress("B7: \(who) median \(all.median / 1000) µs, p99 \(all.p99 / 1000) µs")
    var row = ResultRow.latency(
      "B7", "fan-out: \(who) have it",
      workload: stalled == 0
        ? "256-member group, all connected, one message at a time"
        : "256-member group, all connected, \(stalled) not reading, one message at a time",
      samples: all, target: "p99 ≤ 20 ms", met: { _, p99 in p99 <= 20 },
      note: "from the POST's write to the event's read on the last of the \(readers) sockets")
    row.details["perSocketP50ms"] = Double(each.median) / 1e6
    row.details["perSocketP99ms"] = Double(each.p99) / 1e6
    row.details["generatorCoreShare"] = cpuShare
    return row
  }

  /// Posts `messages` messages one at a time, 2 ms apart, on a connection to `senderPort` on
  /// the sockets' loop, and times each one's event on every socket: the time to the last
  /// socket and to each, and the share of a core the loop's thread used. Blocks its thread.
  static func drive(
    sockets: WebSocketLoad, senderPort: Int, messages: Int, warmUp: Int,
    request: (Int) throws -> [UInt8]
  ) throws -> (Samples, Samples, Double) {
    let opened: Result<ClientChannel, ConnectError>? = sockets.loop.wait(
      until: Nanos.now() + 10_000_000_000
    ) { reply in
      ClientChannel.connect(host: "127.0.0.1", port: senderPort, on: sockets.loop) { reply($0) }
    }
    guard case .success(let sender)? = opened else {
      throw BenchError("fan-out: the sender could not connect: \(String(describing: opened))")
    }
    let round = FanOutRound(sender: sender, sockets: sockets.sockets)
    defer { sockets.loop.execute { sender.close() } }
    var all = Samples()
    var each = Samples()
    let cpuStarted = sockets.loopCPUTime()
    let started = Nanos.now()
    for index in 0..<messages {
      let bytes = try request(index)
      let outcome = sockets.loop.wait(until: Nanos.now() + 10_000_000_000) { reply in
        round.post(bytes, reply)
      }
      guard case .success(let (sentAt, arrivals))? = outcome else {
        if case .failure(let error)? = outcome { throw error }
        throw BenchError("fan-out: message \(index) did not reach every socket in 10 s")
      }
      if index >= warmUp {
        all.add((arrivals.max() ?? sentAt) - sentAt)
        for arrival in arrivals { each.add(arrival - sentAt) }
      }
      usleep(2_000)
    }
    let cpuShare = Double(sockets.loopCPUTime() - cpuStarted) / Double(Nanos.now() - started)
    return (all, each, cpuShare)
  }
}

/// One message of a fan-out on the loop: the POST, its 201, and its event on every socket,
/// each stamped when the loop read it.
private final class FanOutRound: @unchecked Sendable {
  // @unchecked: made on the driver's thread, then touched only on the loop's thread.
  typealias Outcome = Result<(sentAt: Int64, arrivals: [Int64]), BenchError>

  private let sender: ClientChannel
  private let sockets: [ClientChannel]
  private var arrivals: [Int64]
  private var received = 0
  private var answered = false
  private var sentAt: Int64 = 0
  private var reply: (@Sendable (Outcome) -> Void)?
  private var armed = false

  init(sender: ClientChannel, sockets: [ClientChannel]) {
    self.sender = sender
    self.sockets = sockets
    arrivals = Array(repeating: 0, count: sockets.count)
  }

  /// Writes one POST and answers once its 201 and every socket's event are in.
  func post(_ bytes: [UInt8], _ reply: @escaping @Sendable (Outcome) -> Void) {
    if !armed { arm() }
    arrivals = Array(repeating: 0, count: sockets.count)
    (received, answered) = (0, false)
    self.reply = reply
    sentAt = Nanos.now()
    sender.send(request: bytes, method: .post)
  }

  private func arm() {
    armed = true
    sender.onResponse = { [self] head, _ in
      guard head.status.code == 201 else {
        return finish(.failure(BenchError("fan-out: POST answered \(head.status.code)")))
      }
      answered = true
      finishIfComplete()
    }
    sender.onClose = { [self] failure in
      finish(.failure(BenchError("fan-out: the sender's connection ended: \(failure)")))
    }
    for (index, socket) in sockets.enumerated() {
      socket.onMessage = { [self] event in
        guard case .text(let text) = event, arrivals[index] == 0,
          text.contains(#""type":"message""#)
        else { return }
        arrivals[index] = Nanos.now()
        received += 1
        finishIfComplete()
      }
      socket.onClose = { [self] failure in
        finish(.failure(BenchError("fan-out: a live socket ended: \(failure)")))
      }
    }
  }

  private func finishIfComplete() {
    if answered && received == sockets.count { finish(.success((sentAt, arrivals))) }
  }

  private func finish(_ outcome: Outcome) {
    let reply = self.reply
    self.reply = nil
    reply?(outcome)
  }
}
