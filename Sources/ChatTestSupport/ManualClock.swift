import Support

/// A clock that moves only when a test (or the simulation) says so: the engine's and the
/// server's `TimeSource` at once.
///
/// `sleep(for:)` suspends until time passes the deadline; sleepers wake in deadline order (ties
/// in the order they slept). The wall clock can be set wrong on purpose.
public final class ManualClock: TimeSource, Sendable {
  private struct Sleeper {
    let id: Int
    let deadline: Duration
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var elapsed: Duration = .zero
    var wallOrigin: Timestamp
    var sleepers: [Sleeper] = []
    var nextID = 0
  }

  private let state: Locked<State>

  /// Starts at `wallClock` (by default 2026-11-30T14:13:20Z).
  public init(wallClock: Timestamp = Timestamp(secondsSince1970: 1_796_000_000)) {
    state = Locked(State(wallOrigin: wallClock))
  }

  public func now() -> Timestamp {
    state.withLock { $0.wallOrigin + $0.elapsed }
  }

  public func uptime() -> Duration {
    state.withLock { $0.elapsed }
  }

  /// Moves the wall clock (not uptime) by `offset`: a phone set a day wrong.
  public func shiftWallClock(by offset: Duration) {
    state.withLock { $0.wallOrigin = $0.wallOrigin + offset }
  }

  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    let id = state.withLock {
      $0.nextID += 1
      return $0.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resumeNow: Bool = state.withLock {
          if duration <= .zero { return true }
          $0.sleepers.append(
            Sleeper(id: id, deadline: $0.elapsed + duration, continuation: continuation))
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// The earliest deadline of a sleeping task, if any.
  public var nextDeadline: Duration? {
    state.withLock { $0.sleepers.map(\.deadline).min() }
  }

  /// How many tasks are sleeping.
  public var sleeperCount: Int {
    state.withLock { $0.sleepers.count }
  }

  /// Moves time to the earliest deadline not after `target` and wakes the tasks due then;
  /// returns false (moving time to `target`) when none is due.
  @discardableResult
  public func step(toward target: Duration) -> Bool {
    let due: [Sleeper] = state.withLock { state in
      guard let earliest = state.sleepers.map(\.deadline).min(), earliest <= target else {
        state.elapsed = max(state.elapsed, target)
        return []
      }
      state.elapsed = max(state.elapsed, earliest)
      let due = state.sleepers.filter { $0.deadline <= earliest }.sorted { $0.id < $1.id }
      state.sleepers.removeAll { $0.deadline <= earliest }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
    return !due.isEmpty
  }

  /// Moves time forward by `duration` at once, waking every sleeper due by then in deadline
  /// order, without waiting for them to run (for code that reads the time and never sleeps,
  /// like the server; engines need `TestWorld.advance(by:)`, which lets each wake settle).
  public func advance(by duration: Duration) {
    let target = uptime() + duration
    while step(toward: target) {}
  }
}
