import ChatTestSupport
import Observation
import Testing

@MainActor
@Suite(.timeLimit(.minutes(3)))
struct WaitUntilTests {
  @MainActor @Observable
  final class Counter {
    var taps = 0
  }

  /// The change wakes the wait: with an hour's timeout, only the change can end it within the
  /// suite's time limit.
  @Test func returnsOnceAChangeMakesTheConditionHold() async throws {
    let counter = Counter()
    let tapping = Task { @MainActor in
      for _ in 0..<3 { counter.taps += 1 }
    }
    try await waitUntil("three taps", in: counter.taps, timeout: .seconds(3_600)) { $0 == 3 }
    #expect(counter.taps == 3)
    await tapping.value
  }

  @Test func aConditionThatNeverHoldsFailsTheTestAtTheDeadlineSayingWhatItLastSaw() async throws {
    let counter = Counter()
    counter.taps = 2
    let started = ContinuousClock.now
    try await withKnownIssue {
      try await waitUntil("ten taps", in: counter.taps, timeout: .milliseconds(200)) { $0 == 10 }
    } matching: { issue in
      guard let timedOut = issue.error as? WaitTimedOut else { return false }
      return timedOut.description.hasPrefix("waited 0.2 seconds for ten taps (")
        && timedOut.location.hasPrefix("ChatPresentationTests/WaitUntilTests.swift:")
        && timedOut.lastSeen == "2"
    }
    // Not before the deadline: the wait only gives up once the time is spent.
    #expect(ContinuousClock.now - started >= .milliseconds(200))
  }

  @Test func cancellingTheWaitingTaskEndsTheWait() async {
    let counter = Counter()
    let waiting = Task { @MainActor in
      try await waitUntil("a tap", in: counter.taps, timeout: .seconds(3_600)) { $0 > 0 }
    }
    waiting.cancel()
    let outcome = await waiting.result
    #expect(throws: CancellationError.self) { try outcome.get() }
  }
}
