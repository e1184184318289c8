import ChatSimulation
import Testing

/// Seeds that found a bug, replayed after its fix. A history is a function of the seed and the
/// build (docs/ARCHITECTURE.md), so these are seeds that break *this* build (debug, what
/// `swift test` runs) when the fix is taken out; each was checked that way.
@Suite(.timeLimit(.minutes(5)))
struct RegressionSeedTests {
  /// Quick profile, seed 2: bob's phone relaunched after a kill; the `/v1/sync` of its connect
  /// got a 429 and nothing tried it again while the socket stayed up, so the phone never listed
  /// the group created meanwhile (fixed in `ChatEngine`'s `onConnected`, which now hands a
  /// failed sync to `MessagesRepository.learnConversationsLater`). Found first as full-profile
  /// seed 134 in a release build.
  @Test func seed2APhoneLearnsAGroupAfterItsConnectSyncFailed() async throws {
    let result = await SimulationRunner.run(seed: 2, options: SimulationOptions(profile: .quick))
    #expect(result.passed, Comment(rawValue: result.failureReport))
  }

  /// Quick profile, seed 355: the same bug on carol's phone after its third launch; without the
  /// fix it neither lists the group created meanwhile nor shows the group's message.
  @Test func seed355APhoneLearnsAGroupAndItsMessageAfterItsConnectSyncFailed() async throws {
    let result = await SimulationRunner.run(seed: 355, options: SimulationOptions(profile: .quick))
    #expect(result.passed, Comment(rawValue: result.failureReport))
  }
}
