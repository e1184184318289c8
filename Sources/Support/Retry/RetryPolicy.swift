/// How long to wait before trying again: the one retry policy of the engine (the outbox,
/// catch-ups, receipts, learning conversations, the socket) and of the tools.
///
/// After the n-th failure in a row the wait is a random time between half and all of
/// `base × 2ⁿ⁻¹`, capped at `cap`, so devices that lost the network together do not come back
/// in lockstep; never shorter than the server's `Retry-After`, which is itself capped at
/// `maximumRetryAfter` so a wrong header cannot stop a client for a year.
public struct RetryPolicy: Sendable, Equatable {
  public var base: Duration
  public var cap: Duration
  public var maximumRetryAfter: Duration

  public init(
    base: Duration = .milliseconds(500), cap: Duration = .seconds(30),
    maximumRetryAfter: Duration = .seconds(3_600)
  ) {
    self.base = base
    self.cap = cap
    self.maximumRetryAfter = maximumRetryAfter
  }

  /// The wait after failure number `failures` (1 for the first), given the server's
  /// `Retry-After` if it sent one.
  public func delay(
    afterFailure failures: Int, retryAfter: Duration? = nil, random: any RandomSource
  )
    -> Duration
  {
    let exponent = min(max(failures - 1, 0), 20)
    let full = min(cap, base * (1 << exponent))
    let jittered = full / 2 + (full / 2) * random.unit()
    return max(jittered, min(retryAfter ?? .zero, maximumRetryAfter))
  }

  /// A `Retry-After` header in seconds (RFC 9110's delay-seconds form), capped; nil when the
  /// header is absent or not a whole number.
  public func retryAfter(header: String?) -> Duration? {
    guard let header, let seconds = Int(header.trimmingSpaces) else { return nil }
    return min(.seconds(max(0, seconds)), maximumRetryAfter)
  }
}

/// One retry loop's memory: how many attempts failed in a row.
///
/// ```swift
/// var backoff = Backoff(policy)
/// while true {
///   do { try await attempt(); backoff.reset(); break }
///   catch { try await clock.sleep(for: backoff.failed(retryAfter: …, random: random)) }
/// }
/// ```
public struct Backoff: Sendable, Equatable {
  public let policy: RetryPolicy
  public private(set) var failures = 0

  public init(_ policy: RetryPolicy = RetryPolicy()) {
    self.policy = policy
  }

  /// Counts a failure and returns the wait before the next attempt.
  public mutating func failed(retryAfter: Duration? = nil, random: any RandomSource) -> Duration {
    failures += 1
    return policy.delay(afterFailure: failures, retryAfter: retryAfter, random: random)
  }

  /// An attempt succeeded (or the reason for waiting went away): the next failure waits the
  /// shortest time again.
  public mutating func reset() {
    failures = 0
  }
}

extension String {
  fileprivate var trimmingSpaces: Substring {
    var text = Substring(self)
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return text
  }
}
