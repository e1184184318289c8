import Support
import Testing

@Suite struct RetryPolicyTests {
  @Test func backoffGrowsWithEachFailureAndHasJitter() {
    let policy = RetryPolicy()
    let random = SeededRandomSource(seed: 3)
    let delays = (1...8).map { policy.delay(afterFailure: $0, random: random) }
    for (index, delay) in delays.enumerated() {
      let full = min(Duration.seconds(30), .milliseconds(500) * (1 << index))
      #expect(delay >= full / 2 && delay <= full)
    }
    #expect(Set(delays).count == delays.count)
  }

  @Test func retryAfterIsAFloorAndIsCapped() {
    let policy = RetryPolicy()
    let random = SeededRandomSource(seed: 3)
    #expect(policy.delay(afterFailure: 1, retryAfter: .seconds(9), random: random) == .seconds(9))
    #expect(
      policy.delay(afterFailure: 1, retryAfter: .seconds(86_400 * 365), random: random)
        == .seconds(3_600))
  }

  @Test(arguments: [
    ("5", Duration?.some(.seconds(5))), (" 7 ", .seconds(7)), ("0", .zero),
    ("-3", .zero), ("31536000", .seconds(3_600)), ("soon", nil), ("1.5", nil), ("", nil),
  ])
  func readsRetryAfterHeaders(header: String, expected: Duration?) {
    #expect(RetryPolicy().retryAfter(header: header) == expected)
  }

  @Test func aBackoffCountsFailuresUntilReset() {
    var backoff = Backoff(RetryPolicy(base: .seconds(1), cap: .seconds(8)))
    let random = SeededRandomSource(seed: 1)
    let first = backoff.failed(random: random)
    _ = backoff.failed(random: random)
    let third = backoff.failed(random: random)
    #expect(backoff.failures == 3)
    #expect(first <= .seconds(1) && third >= .seconds(2))
    backoff.reset()
    #expect(backoff.failures == 0)
    #expect(backoff.failed(random: random) <= .seconds(1))
  }
}
