import Foundation
import Wire

extension WebSocketLoad {
  /// What an echo run did.
  struct EchoResult: Sendable {
    var echoes = 0
    var windowNanoseconds: Int64 = 0
    var cpuNanoseconds: Int64 = 0
    var wallNanoseconds: Int64 = 0
    var latencies = Samples()
    /// Of several windows, when more were run.
    var slowest = 0.0
    var fastest = 0.0
    var throughput: Double { Double(echoes) / Nanos.seconds(windowNanoseconds) }
    var cpuShare: Double { Double(cpuNanoseconds) / Double(max(1, wallNanoseconds)) }
  }

  /// B8's load: every socket sends a text message, waits for its echo, sends the next, for
  /// `warmUp` then `duration`, on the sockets' loop. Echoes are counted inside the window.
  func echo(payload: [UInt8], warmUp: Int64, duration: Int64) async throws -> EchoResult {
    let driver = EchoDriver(
      sockets: sockets, frame: Self.textFrame(payload), warmUp: warmUp, duration: duration)
    let deadline = Nanos.now() + warmUp + duration + 10_000_000_000
    let loop = loop
    let outcome = try await onThread("bench.echo-wait") {
      loop.wait(until: deadline) { reply in driver.start(reply) }
    }
    switch outcome {
    case .success(let result)?: return result
    case .failure(let error)?: throw error
    case nil: throw BenchError("echo: echoes missing 10 s after the end")
    }
  }
}

/// One echo run on the loop: a message in flight on each socket.
private final class EchoDriver: @unchecked Sendable {
  // @unchecked: made on the caller's thread, then touched only on the loop's thread.
  private let sockets: [ClientChannel]
  private let frame: [UInt8]
  private let warmUp: Int64
  private let duration: Int64
  private var sentAt: [Int64]
  private var done: [Bool]
  private var active = 0
  private var cpuStarted: Int64 = 0
  private var started: Int64 = 0
  private var windowStart: Int64 = 0
  private var windowEnd: Int64 = 0
  private var result = WebSocketLoad.EchoResult()
  private var reply: (@Sendable (Result<WebSocketLoad.EchoResult, BenchError>) -> Void)?

  init(sockets: [ClientChannel], frame: [UInt8], warmUp: Int64, duration: Int64) {
    (self.sockets, self.frame, self.warmUp, self.duration) = (sockets, frame, warmUp, duration)
    sentAt = Array(repeating: 0, count: sockets.count)
    done = Array(repeating: false, count: sockets.count)
  }

  func start(_ reply: @escaping @Sendable (Result<WebSocketLoad.EchoResult, BenchError>) -> Void) {
    self.reply = reply
    cpuStarted = CPUTime.thread()
    started = Nanos.now()
    windowStart = started + warmUp
    windowEnd = windowStart + duration
    active = sockets.count
    for (index, socket) in sockets.enumerated() {
      socket.onMessage = { [self] event in
        if case .text = event { echoed(index) }
      }
      socket.onClose = { [self] _ in
        finish(.failure(BenchError("echo: the server closed a connection")))
      }
      send(index)
    }
  }

  private func send(_ index: Int) {
    sentAt[index] = Nanos.now()
    sockets[index].send(frame)
  }

  private func echoed(_ index: Int) {
    guard !done[index] else { return }
    let now = Nanos.now()
    if now >= windowStart && now < windowEnd {
      result.echoes += 1
      if result.echoes % 16 == 0 { result.latencies.add(now - sentAt[index]) }
    }
    if now < windowEnd {
      send(index)
    } else {
      done[index] = true
      active -= 1
      if active == 0 {
        result.windowNanoseconds = duration
        result.wallNanoseconds = Nanos.now() - started
        result.cpuNanoseconds = CPUTime.thread() - cpuStarted
        finish(.success(result))
      }
    }
  }

  private func finish(_ outcome: Result<WebSocketLoad.EchoResult, BenchError>) {
    for socket in sockets {
      socket.onMessage = nil
      socket.onClose = nil
    }
    let reply = self.reply
    self.reply = nil
    reply?(outcome)
  }
}
