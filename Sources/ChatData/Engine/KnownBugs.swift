/// Test-only switches that put known client bugs back, so the simulation can prove its checker
/// catches each of them (`Tests/SimulationTests/KnownBugTests.swift`). Off by default; nothing
/// outside the package can turn them on, and the app never does.
///
/// Each one is the trap named in seed 000, in one line of the engine:
/// - `retryWithNewID`: every post carries a fresh client message ID, so the server cannot
///   recognise a retry after a lost reply (`MessagesRepository.post`).
/// - `orderByDeviceClock`: a conversation is sorted by `sentAt`, the phone's clock for its own
///   unsent messages, instead of the server's sequence (`CompositeMessageRepository.current`).
/// - `skipCatchUpAfterReconnect`: a reconnect trusts the socket and fetches nothing it missed
///   (`ChatEngine`'s `onConnected`).
/// - `stopOutboxAtFirst4xx`: a rejected message is retried like a temporary failure, so the
///   queue stops behind it (`MessagesRepository.post`).
package struct KnownBugs: OptionSet, Sendable, Hashable {
  package let rawValue: Int

  package init(rawValue: Int) { self.rawValue = rawValue }

  package static let retryWithNewID = KnownBugs(rawValue: 1 << 0)
  package static let orderByDeviceClock = KnownBugs(rawValue: 1 << 1)
  package static let skipCatchUpAfterReconnect = KnownBugs(rawValue: 1 << 2)
  package static let stopOutboxAtFirst4xx = KnownBugs(rawValue: 1 << 3)
}
