/// Exponential backoff with jitter, for the outbox, catch-ups and the socket.
///
/// Attempt n waits a random time between half and all of `base × 2ⁿ⁻¹` (capped at `cap`), so
/// devices that lost the network together do not come back in lockstep; never less than the
/// server's `Retry-After`.
struct Backoff: Sendable {
  var base: Duration = .milliseconds(500)
  var cap: Duration = .seconds(30)

  func delay(attempt: Int, retryAfter: Duration? = nil, random: any RandomSource) -> Duration {
    let exponent = min(max(attempt - 1, 0), 20)
    let full = min(cap, base * (1 << exponent))
    let jittered = full / 2 + (full / 2) * random.unit()
    return max(jittered, retryAfter ?? .zero)
  }
}
