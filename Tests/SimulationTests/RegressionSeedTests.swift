import ChatData
import Testing

@testable import ChatSimulation

/// Bugs the simulation found, replayed under a fault plan aimed at them (`Focus`), so they
/// show within a few seeds whatever the build: a fixed seed stops reaching a bug as soon as the
/// code changes the histories. Each bug's switch shows, in `KnownBugTests`, that the aimed plan
/// reaches it; here the same plan must break nothing with the fix in.
@Suite(.timeLimit(.minutes(5)))
struct RegressionSeedTests {
  /// A `/v1/sync` that failed (a 429 after a relaunch, say) was never tried again while the
  /// socket stayed up, so the phone never listed a group created meanwhile nor showed its
  /// messages (`ConversationsRepository.learnLater`). Found first as full-profile seed 134 in a
  /// release build, then in about one quick seed in 600.
  @Test(arguments: 1...6 as ClosedRange<UInt64>)
  func aFailedSyncIsTriedAgainWhileTheSocketStaysUp(seed: UInt64) async throws {
    var options = SimulationOptions(profile: .quick)
    options.focus = .failingSync
    let result = await SimulationRunner.run(seed: seed, options: options)
    let passed = result.passed
    #expect(passed, Comment(rawValue: result.failureReport))
  }
}
