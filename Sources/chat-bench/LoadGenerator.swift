import ChatLoad
import Foundation
import Glibc

/// B6's load generator: keep-alive HTTP/1.1 clients on real sockets, each a closed loop (send a
/// request, read the whole response, send the next), all driven by one thread with epoll.
///
/// Kept small and on its own so it can be reconciled with the `chat-server` load generator
/// (branch `server2`). It checks itself: it measures its own thread's CPU time, so a report can
/// say whether the generator or the server was the limit.
enum HTTPLoadGenerator {
  struct Result: Sendable {
    /// Responses completed inside the measured window.
    var completed = 0
    /// Responses completed in the whole run, warm-up included.
    var total = 0
    /// Responses by status, inside the window.
    var statuses: [Int: Int] = [:]
    /// Request latencies inside the window.
    var latencies = Samples()
    /// Responses completed in each second of the window.
    var perSecond: [Int] = []
    var windowNanoseconds: Int64 = 0
    /// The generator thread's CPU time over the whole run (warm-up included).
    var cpuNanoseconds: Int64 = 0
    var wallNanoseconds: Int64 = 0

    var throughput: Double { Double(completed) / Nanos.seconds(windowNanoseconds) }
    /// The share of one core the generator used.
    var cpuShare: Double { Double(cpuNanoseconds) / Double(max(1, wallNanoseconds)) }
  }

  /// Runs one closed loop per element of `requests` (which makes that client's n-th request)
  /// for `warmUp` then `duration` nanoseconds, on a thread of its own.
  static func run(
    port: Int, requests: [@Sendable (Int) -> [UInt8]], warmUp: Int64, duration: Int64
  ) async throws -> Result {
    try await onThread("bench.load") {
      try drive(port: port, requests: requests, warmUp: warmUp, duration: duration)
    }
  }

  private struct Client {
    let fd: Int32
    var buffer: [UInt8] = []
    var sentAt: Int64 = 0
    var sent = 0
    var done = false
  }

  private static func drive(
    port: Int, requests: [@Sendable (Int) -> [UInt8]], warmUp: Int64, duration: Int64
  ) throws -> Result {
    let poller = Poller()
    var clients: [Client] = []
    defer { for client in clients { close(client.fd) } }
    for (index, _) in requests.enumerated() {
      let fd = try LoadSocket.connect(host: "127.0.0.1", port: port)
      LoadSocket.setNonBlocking(fd)
      poller.add(fd, token: index)
      clients.append(Client(fd: fd))
    }
    let cpuStarted = CPUTime.thread()
    let started = Nanos.now()
    let windowStart = started + warmUp
    let windowEnd = windowStart + duration
    var result = Result()
    result.perSecond = [Int](repeating: 0, count: Int((duration + 999_999_999) / 1_000_000_000))

    func sendNext(_ index: Int) -> Bool {
      let bytes = requests[index](clients[index].sent)
      clients[index].sent += 1
      clients[index].sentAt = Nanos.now()
      return bytes.withUnsafeBytes { RawSocket.send(clients[index].fd, $0) }
    }

    for index in clients.indices where !sendNext(index) {
      throw BenchError("the server closed a load connection")
    }
    var active = clients.count
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while active > 0 {
      if Nanos.now() > windowEnd + 10_000_000_000 {
        throw BenchError("load: \(active) requests unanswered 10 s after the end")
      }
      var failure: BenchError?
      poller.wait(timeout: 100) { index in
        guard !clients[index].done else { return }
        guard RawSocket.drain(clients[index].fd, into: &clients[index].buffer, chunk: &chunk)
        else {
          failure = BenchError("the server closed a load connection")
          return
        }
        var consumed = 0
        while let (length, status) = HTTPResponseScanner.response(
          clients[index].buffer, from: consumed)
        {
          consumed += length
          result.total += 1
          let now = Nanos.now()
          if now >= windowStart && now < windowEnd {
            result.completed += 1
            result.statuses[status, default: 0] += 1
            result.latencies.add(now - clients[index].sentAt)
            result.perSecond[Int((now - windowStart) / 1_000_000_000)] += 1
          }
          if now < windowEnd {
            if !sendNext(index) { failure = BenchError("load: a send failed") }
          } else {
            clients[index].done = true
            active -= 1
          }
        }
        if consumed > 0 { clients[index].buffer.removeFirst(consumed) }
      }
      if let failure { throw failure }
    }
    result.windowNanoseconds = duration
    result.wallNanoseconds = Nanos.now() - started
    result.cpuNanoseconds = CPUTime.thread() - cpuStarted
    return result
  }
}

/// HTTP/1.1 request bytes.
enum HTTPRequestBytes {
  static func make(
    _ method: String, _ path: String, token: String? = nil, json body: String? = nil
  ) -> [UInt8] {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if let token { head += "Authorization: Bearer \(token)\r\n" }
    if let body {
      head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
      return Array((head + body).utf8)
    }
    return Array((head + "\r\n").utf8)
  }
}
