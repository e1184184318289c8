import ChatSimulation
import Foundation
import Testing

@testable import ChatData

/// The simulation itself: deterministic, and clean over many seeds.
@Suite(.timeLimit(.minutes(10)))
struct SimulationTests {
  /// How many seeds CI runs (the brief asks for at least 200).
  static let ciSeeds = 200

  @Test func theSameSeedMakesTheSameHistory() async throws {
    let options = SimulationOptions(profile: .quick)
    let first = await SimulationRunner.run(seed: 7, options: options)
    let second = await SimulationRunner.run(seed: 7, options: options)
    #expect(first.traceHash == second.traceHash)
    #expect(first.trace == second.trace)
    #expect(first.trace.count > 100)
    let other = await SimulationRunner.run(seed: 8, options: options)
    #expect(other.traceHash != first.traceHash)
  }

  /// A failing seed replays too, reports and all: the run a developer replays is a failing one.
  @Test func aFailingSeedMakesTheSameReportTwice() async throws {
    var options = SimulationOptions(profile: .quick)
    options.knownBugs = [.skipCatchUpAfterReconnect, .orderByDeviceClock]
    let first = await SimulationRunner.run(seed: 3, options: options)
    let second = await SimulationRunner.run(seed: 3, options: options)
    #expect(!first.passed)
    #expect(first.violations == second.violations)
    #expect(first.traceHash == second.traceHash)
    #expect(first.failureReport == second.failureReport)
  }

  @Test func twoHundredSeedsBreakNoInvariant() async throws {
    let results = await SimulationRunner.run(
      seeds: (1...UInt64(Self.ciSeeds)).map { $0 },
      options: SimulationOptions(profile: .quick, keepsTrace: false), threads: 2)
    #expect(results.count == Self.ciSeeds)
    for failure in results where !failure.passed {
      let replayed = await SimulationRunner.run(
        seed: failure.seed, options: SimulationOptions(profile: .quick))
      Issue.record(Comment(rawValue: replayed.failureReport))
    }
    // The faults really happened: each kind struck somewhere in the run.
    let summary = RunSummary(results: results, wallTime: .zero)
    for kind in FaultKind.allCases {
      #expect((summary.faults[kind] ?? 0) > 0, "no \(kind.rawValue) in \(Self.ciSeeds) seeds")
    }
  }

  /// Devices that keep 5 messages per conversation prune as they go to the background and
  /// once more at the end: every message below a floor is found by the server search, and no
  /// invariant breaks.
  @Test func pruningDevicesBreakNoInvariant() async throws {
    var options = SimulationOptions(profile: .quick, keepsTrace: false)
    options.retainMessages = 5
    let summary = await Self.runClean(seeds: Array(1...8), options)
    #expect(summary.retention.pruned > 0, "nothing was pruned")
    #expect(summary.retention.searched > 0, "no message ended below a history floor")
    #expect(summary.retention.found == summary.retention.searched)
  }

  /// With a stale threshold of 45 simulated seconds, messages the faults keep waiting are
  /// held, and their users send some now and discard others: no invariant breaks (nothing
  /// posted stale, nothing discarded kept, nothing lost).
  @Test func staleSendsAskFirstAndBreakNoInvariant() async throws {
    var options = SimulationOptions(profile: .quick, keepsTrace: false)
    options.staleAfter = .seconds(45)
    let summary = await Self.runClean(seeds: Array(1...12), options)
    #expect(summary.stale.held > 0, "no message was held")
    #expect(summary.stale.sentNow > 0, "nobody chose send now")
    #expect(summary.stale.discarded > 0, "nobody discarded")
  }

  /// The seeds of the 1000-seed run with a window of 5 and stale after 45 s that broke
  /// receipt-backwards: a held photo posted again with a new upload, or without its media
  /// after a discard, was a 409 that showed it failed though the server held it (208, 753);
  /// a tapped retry or send now whose clock no screen saw (596, 661, 716).
  @Test func theSeedsWhereAHeldPhotoWasPostedAgainPass() async throws {
    var options = SimulationOptions(profile: .quick, keepsTrace: false)
    options.retainMessages = 5
    options.staleAfter = .seconds(45)
    let summary = await Self.runClean(seeds: [208, 596, 661, 716, 753], options)
    #expect(summary.stale.sentNow > 0 && summary.stale.discarded > 0)
  }

  /// Runs `seeds` with `options`; records each failure's report (replayed with its trace).
  private static func runClean(seeds: [UInt64], _ options: SimulationOptions) async
    -> RunSummary
  {
    let results = await SimulationRunner.run(seeds: seeds, options: options, threads: 2)
    #expect(results.count == seeds.count)
    for failure in results where !failure.passed {
      var traced = options
      traced.keepsTrace = true
      let replayed = await SimulationRunner.run(seed: failure.seed, options: traced)
      Issue.record(Comment(rawValue: replayed.failureReport))
    }
    return RunSummary(results: results, wallTime: .zero)
  }

  @Test func aRunLeavesNoFileOpen() async throws {
    let options = SimulationOptions(profile: .quick, keepsTrace: false)
    _ = await SimulationRunner.run(seed: 1, options: options)
    let before = Self.openFiles()
    _ = await SimulationRunner.run(seeds: Array(2...9), options: options, threads: 1)
    #expect(Self.openFiles() <= before + 2)
  }

  /// A launch killed before its engine was kept, thawed by the teardown after it had closed
  /// every engine, started one that retried its catch-up for the whole simulated day (seed
  /// 6621 in a release build, one of seeds 1–20 in a debug build: this test failed without
  /// the fix). Now it closes itself; no seed of these leaves a task behind.
  @Test func theTeardownLeavesNoTaskRunning() async {
    let options = SimulationOptions(profile: .quick, keepsTrace: false)
    let results = await SimulationRunner.run(
      seeds: Array(1...20) + [6621], options: options, threads: 2)
    for result in results {
      #expect(
        result.leftAtTeardown.jobs == 0 && result.leftAtTeardown.timers == 0,
        "seed \(result.seed): \(result.leftAtTeardown)")
    }
  }

  private static func openFiles() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
  }
}
