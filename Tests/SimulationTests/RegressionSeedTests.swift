import ChatSimulation
import Testing

/// Seeds that found a bug, replayed after its fix. Each fails if the fix is taken out.
@Suite(.timeLimit(.minutes(5)))
struct RegressionSeedTests {
  /// Quick profile, seed 57: carol created a conversation with alice; the `/v1/sync` that its
  /// first message started on alice's tablet was dropped, the socket stayed up, and the tablet
  /// never listed the conversation (fixed in `MessagesRepository.learnConversationsLater`).
  @Test func seed57TheTabletLearnsAConversationWhoseSyncWasDropped() async throws {
    let result = await SimulationRunner.run(seed: 57, options: SimulationOptions(profile: .quick))
    #expect(result.passed, Comment(rawValue: result.failureReport))
  }

  /// Full profile, seed 134: a group was created while the tablet's socket was silent; the
  /// `/v1/sync` after its reconnect was dropped and never tried again, so the tablet never
  /// listed the group (fixed in `ChatEngine`'s `onConnected`).
  @Test func seed134TheTabletLearnsAGroupAfterItsReconnectSyncWasDropped() async throws {
    let result = await SimulationRunner.run(seed: 134, options: SimulationOptions(profile: .full))
    #expect(result.passed, Comment(rawValue: result.failureReport))
  }
}
