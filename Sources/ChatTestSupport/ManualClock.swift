import ChatData
import Foundation

/// A clock that moves only when a test (or the simulation) says so.
///
/// `sleep(for:)` suspends until `advance` passes the deadline; sleepers wake in deadline order
/// (ties in the order they slept). The wall clock can be set wrong on purpose.
public final class ManualClock: EngineClock, @unchecked Sendable {
  // @unchecked: every mutable field is touched only while holding `lock`.
  private struct Sleeper {
    let id: Int
    let deadline: Duration
    let continuation: CheckedContinuation<Void, any Error>
  }

  private let lock = NSLock()
  private var elapsed: Duration = .zero
  private var wallOrigin: Date
  private var sleepers: [Sleeper] = []
  private var nextID = 0

  public init(wallClock: Date = Date(timeIntervalSince1970: 1_796_000_000)) {
    wallOrigin = wallClock
  }

  public func now() -> Date {
    lock.withLock {
      wallOrigin.addingTimeInterval(
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
  }

  public func uptime() -> Duration {
    lock.withLock { elapsed }
  }

  /// Moves the wall clock (not uptime) by `offset`: a phone set a day wrong.
  public func shiftWallClock(by offset: TimeInterval) {
    lock.withLock { wallOrigin = wallOrigin.addingTimeInterval(offset) }
  }

  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    let id = lock.withLock {
      nextID += 1
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resumeNow: Bool = lock.withLock {
          if duration <= .zero { return true }
          sleepers.append(
            Sleeper(id: id, deadline: elapsed + duration, continuation: continuation))
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let sleeper = lock.withLock { () -> Sleeper? in
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// The earliest deadline of a sleeping task, if any.
  public var nextDeadline: Duration? {
    lock.withLock { sleepers.map(\.deadline).min() }
  }

  /// How many tasks are sleeping.
  public var sleeperCount: Int {
    lock.withLock { sleepers.count }
  }

  /// Moves time to the earliest deadline not after `target` and wakes the tasks due then;
  /// returns false (moving time to `target`) when none is due.
  @discardableResult
  public func step(toward target: Duration) -> Bool {
    let due: [Sleeper] = lock.withLock {
      guard let earliest = sleepers.map(\.deadline).min(), earliest <= target else {
        elapsed = max(elapsed, target)
        return []
      }
      elapsed = max(elapsed, earliest)
      let due = sleepers.filter { $0.deadline <= earliest }.sorted { $0.id < $1.id }
      sleepers.removeAll { $0.deadline <= earliest }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
    return !due.isEmpty
  }
}
