import ChatData
import Foundation
import Glibc
import SQLite
import Support

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`): the same clock in every process of the
/// machine, so a parent and the child it spawned can subtract each other's readings.
enum Nanos {
  static func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }

  static func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds) / 1e9 }

  static func of(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
  }
}

/// The engines' clock in the benchmarks: the real wall clock, and an `uptime()` read from
/// `CLOCK_MONOTONIC`, so times the engine stamps (`sentMessages()`) compare with `Nanos.now()`.
struct BenchClock: TimeSource {
  func now() -> Timestamp { SystemTimeSource().now() }
  func uptime() -> Duration { .nanoseconds(Nanos.now()) }
  func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// Latency samples in nanoseconds.
struct Samples: Sendable {
  private(set) var values: [Int64] = []

  init(_ values: [Int64] = []) {
    self.values = values
  }

  var count: Int { values.count }

  mutating func add(_ nanoseconds: Int64) { values.append(nanoseconds) }

  mutating func append(contentsOf other: Samples) { values.append(contentsOf: other.values) }

  /// The nearest-rank percentile (0 < p ≤ 1); 0 when empty.
  func percentile(_ p: Double) -> Int64 {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((Double(sorted.count) * p).rounded(.up))
    return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
  }

  var median: Int64 { percentile(0.5) }
  var p99: Int64 { percentile(0.99) }
  var max: Int64 { values.max() ?? 0 }
  var min: Int64 { values.min() ?? 0 }
  var mean: Double { values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count) }

  /// The sorted values, for the charts.
  var sorted: [Int64] { values.sorted() }
}

/// CPU time used so far, in nanoseconds: by the calling thread, or by the whole process.
enum CPUTime {
  /// `RUSAGE_THREAD` (Linux), which Glibc's module does not export.
  static func thread() -> Int64 { read(1) }
  static func process() -> Int64 { read(0) }

  private static func read(_ who: Int32) -> Int64 {
    var usage = rusage()
    getrusage(who, &usage)
    let user = Int64(usage.ru_utime.tv_sec) * 1_000_000_000 + Int64(usage.ru_utime.tv_usec) * 1000
    let system =
      Int64(usage.ru_stime.tv_sec) * 1_000_000_000 + Int64(usage.ru_stime.tv_usec) * 1000
    return user + system
  }

  /// CPU time of another process (user + system) from `/proc/PID/stat`, in nanoseconds.
  static func process(_ pid: Int32) -> Int64? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the command: state is field 3; utime and stime are fields 14 and 15.
    guard fields.count > 13, let user = Int64(fields[11]), let system = Int64(fields[12]) else {
      return nil
    }
    let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
    return (user + system) * 1_000_000_000 / ticks
  }
}

/// Resident memory, from `/proc/PID/status` (kibibytes).
struct Memory: Codable, Sendable {
  /// `VmRSS`: resident now (anonymous + file-backed + shared memory).
  var rssKiB: Int
  /// `VmHWM`: the highest `VmRSS` so far.
  var peakKiB: Int
  /// `RssAnon`: the heap, stacks and other private memory.
  var anonymousKiB: Int
  /// `RssFile`: mapped files (the executable, libraries).
  var fileKiB: Int

  static func read(pid: String = "self") -> Memory? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    else { return nil }
    var values: [String: Int] = [:]
    for line in status.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let number = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first
        .flatMap { Int($0) }
      if let number { values[String(parts[0])] = number }
    }
    guard let rss = values["VmRSS"] else { return nil }
    return Memory(
      rssKiB: rss, peakKiB: values["VmHWM"] ?? rss, anonymousKiB: values["RssAnon"] ?? 0,
      fileKiB: values["RssFile"] ?? 0)
  }
}

/// Sleeps the calling task until `deadline` (`Nanos.now()` scale); returns at once when passed.
func sleep(until deadline: Int64) async {
  let remaining = deadline - Nanos.now()
  if remaining > 0 { try? await Task.sleep(for: .nanoseconds(remaining)) }
}

/// Runs `body` as a task on `executor` (a store's or an engine's thread) and returns its result:
/// a measurement made there holds no hop between threads.
func onExecutor<T: Sendable>(
  _ executor: any SerialTaskExecutor, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await executor.spawn { () async -> Result<T, any Error> in
    do {
      return .success(try await body())
    } catch {
      return .failure(error)
    }
  }.value.get()
}
