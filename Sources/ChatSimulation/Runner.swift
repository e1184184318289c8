import Foundation
import Synchronization

/// Runs seeds: one on the calling thread, one on a thread of its own, or many over several
/// threads. A run steps its own executors from a plain thread, never from inside a Swift task
/// (a job must not run another job inside itself), so async callers get a thread made for it.
public enum SimulationRunner {
  /// Runs one seed on the calling thread, which must not be running a Swift task.
  public static func run(seed: UInt64, options: SimulationOptions) -> SeedResult {
    Simulation.run(seed: seed, options: options)
  }

  /// Runs one seed on a thread of its own.
  public static func run(seed: UInt64, options: SimulationOptions) async -> SeedResult {
    await withCheckedContinuation { continuation in
      startThread {
        continuation.resume(returning: Simulation.run(seed: seed, options: options))
      }
    }
  }

  /// Runs `seeds` on `threads` threads; `report` hears each result as it finishes (from those
  /// threads, one at a time). Returns the results in seed order.
  public static func run(
    seeds: [UInt64], options: SimulationOptions, threads: Int,
    report: @escaping @Sendable (SeedResult) -> Void = { _ in }
  ) -> [SeedResult] {
    let queue = SeedQueue(seeds: seeds)
    let done = DispatchGroup()
    for _ in 0..<max(1, min(threads, seeds.count)) {
      done.enter()
      startThread {
        while let seed = queue.next() {
          let result = Simulation.run(seed: seed, options: options)
          queue.finished(result, report: report)
        }
        done.leave()
      }
    }
    done.wait()
    return queue.results.sorted { $0.seed < $1.seed }
  }

  /// Async form of `run(seeds:options:threads:report:)`.
  public static func run(seeds: [UInt64], options: SimulationOptions, threads: Int) async
    -> [SeedResult]
  {
    await withCheckedContinuation { continuation in
      startThread {
        continuation.resume(
          returning: run(seeds: seeds, options: options, threads: threads))
      }
    }
  }

  private static func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 16 << 20
    thread.start()
  }
}

/// Hands out seeds to the threads and collects their results.
private final class SeedQueue: Sendable {
  private struct State {
    var pending: [UInt64]
    var collected: [SeedResult] = []
  }

  private let state: Mutex<State>

  init(seeds: [UInt64]) { state = Mutex(State(pending: seeds.reversed())) }

  func next() -> UInt64? {
    state.withLock { $0.pending.popLast() }
  }

  func finished(_ result: SeedResult, report: (SeedResult) -> Void) {
    state.withLock {
      $0.collected.append(result)
      report(result)
    }
  }

  var results: [SeedResult] { state.withLock { $0.collected } }
}
