import ChatDomain
import SQLite

/// What every part of one engine shares: the executor they all run on, the store, the API,
/// the seams and the metrics. Passed to each part's initializer (constructor injection; no
/// container).
struct EngineContext: Sendable {
  let executor: any SerialTaskExecutor
  let me: UserID
  let store: MessageStore
  let api: APIClient
  let clock: any EngineClock
  let random: any RandomSource
  let ids: any MessageIDGenerator
  let log: any LogSink
  let metrics: ClientMetrics
  let backoff: Backoff
  /// Test-only (see `KnownBugs`); empty in apps.
  let knownBugs: KnownBugs

  /// Starts work on the engine's executor.
  @discardableResult
  func spawn(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    executor.spawn(operation)
  }
}

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
