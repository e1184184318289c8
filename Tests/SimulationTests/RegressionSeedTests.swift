import ChatData
import ChatSimulation
import Testing

@testable import ChatSimulation

/// Seeds that found a bug, replayed with its fix, each paired with its known-bug switch (see
/// `KnownBugs`) so the pair proves the seed still reaches the bug.
///
/// A history is a function of the seed and the build (docs/ARCHITECTURE.md): when the code
/// changes, a seed may stop reaching the bug. Then the first half of the pair fails and says
/// so, and a new seed is found with the bug's switch on:
/// `swift run chat-sim --known-bug <name> --seeds 1000` (a debug build, like `swift test`).
@Suite(.timeLimit(.minutes(5)))
struct RegressionSeedTests {
  /// A `/v1/sync` that failed (a 429 after a relaunch, say) was never tried again while the
  /// socket stayed up, so the phone never listed a group created meanwhile nor showed its
  /// messages (`ConversationsRepository.learnLater`). Found first as full-profile seed 134 in a
  /// release build; one seed in about 600 reaches it in the quick profile.
  @Test func aFailedSyncIsTriedAgainWhileTheSocketStaysUp() async throws {
    try await replay(seed: 468, bug: .noRetryOfFailedSync, name: "noRetryOfFailedSync")
  }

  /// Runs `seed` with `bug` put back (it must break `divergent`) and without (it must pass).
  private func replay(seed: UInt64, bug: KnownBugs, name: String) async throws {
    var withBug = SimulationOptions(profile: .quick, keepsTrace: false)
    withBug.knownBugs = bug
    let broken = await SimulationRunner.run(seed: seed, options: withBug)
    let reachesTheBug = broken.violations.contains { $0.invariant == .divergent }
    #expect(
      reachesTheBug,
      """
      seed \(seed) no longer reaches \(name) in this build: find another with \
      swift run chat-sim --known-bug \(name) --seeds 1000
      """)
    let fixed = await SimulationRunner.run(seed: seed, options: SimulationOptions(profile: .quick))
    let passed = fixed.passed
    #expect(passed, Comment(rawValue: fixed.failureReport))
  }
}
