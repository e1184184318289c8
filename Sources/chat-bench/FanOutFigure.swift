import ChatLoad
import Foundation
import Glibc

/// B7: fan-out. One message to a 256-member group whose 256 members all hold a live socket:
/// the time from writing the POST until the message event has arrived on every one of the 256
/// sockets (the figure), and on each socket (in the details). One message at a time, 2 ms
/// apart. The sockets are raw clients read by one thread with epoll, which stamps a frame when
/// `read` returns it.
enum FanOutFigure {
  static let members = 256

  static func run(server: BenchServer, messages: Int) async throws -> ResultRow {
    var tokens: [String] = []
    for member in 0..<members { tokens.append(try await server.signIn("g\(member)")) }
    let group = try await server.createConversation(
      token: tokens[0], title: "B7", members: (1..<members).map { "g\($0)" })
    let sockets = try WebSocketLoad.open(
      count: members, port: server.port, path: "/v1/live",
      headers: { ["Authorization": "Bearer \(tokens[$0])"] })
    let sender = try LoadSocket.connect(host: "127.0.0.1", port: server.port)
    LoadSocket.setNonBlocking(sender)
    defer {
      close(sender)
      for socket in sockets { close(socket.fd) }
    }
    let path = "/v1/conversations/\(group)/messages"
    let token = tokens[0]
    let warmUp = max(20, messages / 10)
    let outcome = try await onThread("bench.fan-out") {
      try drive(sockets: sockets, sender: sender, messages: warmUp + messages, warmUp: warmUp) {
        index in
        let id = String(format: "00000000-0000-7000-8000-%012x", index)
        return HTTPRequestBytes.make(
          "POST", path, token: token,
          json: #"{"clientMessageId":"\#(id)","text":"to all of you, number \#(index)"}"#)
      }
    }
    let (all, each, cpuShare) = outcome
    progress("B7: all 256 sockets median \(all.median / 1000) µs, p99 \(all.p99 / 1000) µs")
    var row = ResultRow.latency(
      "B7", "fan-out: all 256 sockets have it",
      workload: "256-member group, all connected, one message at a time", samples: all,
      target: "p99 ≤ 20 ms", met: { _, p99 in p99 <= 20 },
      note: "from the POST's write to the event's read on the last of the 256 sockets")
    row.details["perSocketP50ms"] = Double(each.median) / 1e6
    row.details["perSocketP99ms"] = Double(each.p99) / 1e6
    row.details["generatorCoreShare"] = cpuShare
    return row
  }

  static func drive(
    sockets: [(fd: Int32, leftover: [UInt8])], sender: Int32, messages: Int, warmUp: Int,
    request: (Int) -> [UInt8]
  ) throws -> (Samples, Samples, Double) {
    let poller = Poller()
    let senderToken = sockets.count
    for (index, socket) in sockets.enumerated() { poller.add(socket.fd, token: index) }
    poller.add(sender, token: senderToken)
    var buffers = sockets.map(\.leftover)
    var senderBuffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    let needle = Array(#""type":"message""#.utf8)
    var all = Samples()
    var each = Samples()
    let cpuStarted = CPUTime.thread()
    let started = Nanos.now()
    for index in 0..<messages {
      var arrivals = [Int64](repeating: 0, count: sockets.count)
      var received = 0
      var answered = false
      let bytes = request(index)
      let sentAt = Nanos.now()
      guard bytes.withUnsafeBytes({ RawSocket.send(sender, $0) }) else {
        throw BenchError("B7: the POST could not be written")
      }
      var failure: BenchError?
      while received < sockets.count || !answered {
        if Nanos.now() - sentAt > 10_000_000_000 {
          throw BenchError("B7: message \(index) reached \(received) sockets in 10 s")
        }
        poller.wait(timeout: 100) { token in
          let now = Nanos.now()
          if token == senderToken {
            guard RawSocket.drain(sender, into: &senderBuffer, chunk: &chunk) else {
              failure = BenchError("B7: the server closed the sender's connection")
              return
            }
            if let (length, status) = HTTPResponseScanner.response(senderBuffer, from: 0) {
              guard status == 201 else {
                failure = BenchError("B7: POST answered \(status)")
                return
              }
              senderBuffer.removeFirst(length)
              answered = true
            }
            return
          }
          guard RawSocket.drain(sockets[token].fd, into: &buffers[token], chunk: &chunk)
          else {
            failure = BenchError("B7: the server closed a live socket")
            return
          }
          var consumed = 0
          while let (opcode, range, length) = WebSocketLoad.parse(buffers[token], from: consumed) {
            consumed += length
            if opcode == 0x9 {
              WebSocketLoad.answerPing(sockets[token].fd, payload: buffers[token][range])
            } else if opcode == 0x1, arrivals[token] == 0,
              WebSocketLoad.contains(buffers[token], range, needle)
            {
              arrivals[token] = now
              received += 1
            }
          }
          if consumed > 0 { buffers[token].removeFirst(consumed) }
        }
        if let failure { throw failure }
      }
      if index >= warmUp {
        all.add((arrivals.max() ?? sentAt) - sentAt)
        for arrival in arrivals { each.add(arrival - sentAt) }
      }
      usleep(2_000)
    }
    let cpuShare = Double(CPUTime.thread() - cpuStarted) / Double(Nanos.now() - started)
    return (all, each, cpuShare)
  }
}
