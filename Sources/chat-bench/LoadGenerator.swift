import ChatLoad
import Foundation
import Wire

/// B6's load generator: keep-alive HTTP/1.1 clients, each a closed loop (send a request, read
/// the whole response, send the next), all on one Wire loop: ChatLoad's ``ClosedLoop``, the
/// one `chat-load` runs, with a recorder that counts B6's way (every status in the window, each
/// second's count). It checks itself: it measures its loop thread's CPU time, so a report can
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
  /// for `warmUp` then `duration` nanoseconds, on a loop thread of its own.
  static func run(
    port: Int, method: HTTPMethod, requests: [@Sendable (Int) throws -> [UInt8]],
    warmUp: Int64, duration: Int64
  ) async throws -> Result {
    try await onThread("bench.load") {
      let recorder = Recorder(warmUp: warmUp, duration: duration)
      let clients = requests.map { ClosedLoop.Client(port: port, method: method, request: $0) }
      let loops = try ClosedLoop.run(
        clients, name: "bench.load", giveUpAt: Nanos.now() + warmUp + duration + 15_000_000_000
      ) { _ in recorder }
      var result = recorder.result
      result.windowNanoseconds = duration
      result.wallNanoseconds = loops[0].time.wallNanoseconds
      result.cpuNanoseconds = loops[0].time.cpuNanoseconds
      return result
    }
  }

  /// Counts B6's way, on the loop's thread; read after the run.
  private final class Recorder: LoadRecorder, @unchecked Sendable {
    // @unchecked: used on the one loop's thread during the run, read only after it.
    let warmUp: Int64
    let duration: Int64
    var windowStart: Int64 = .max
    var windowEnd: Int64 = .max
    var result = Result()

    init(warmUp: Int64, duration: Int64) {
      self.warmUp = warmUp
      self.duration = duration
      result.perSecond = [Int](repeating: 0, count: Int((duration + 999_999_999) / 1_000_000_000))
    }

    func started(at time: Int64) {
      windowStart = time + warmUp
      windowEnd = windowStart + duration
    }

    func record(client: Int, status: Int, sentAt: Int64, answeredAt now: Int64) -> Bool {
      result.total += 1
      if now >= windowStart && now < windowEnd {
        result.completed += 1
        result.statuses[status, default: 0] += 1
        result.latencies.add(now - sentAt)
        result.perSecond[Int((now - windowStart) / 1_000_000_000)] += 1
      }
      return now < windowEnd
    }
  }
}
