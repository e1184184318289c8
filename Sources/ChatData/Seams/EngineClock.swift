import Foundation

/// The seam to time. Injected, so backoff, throttling and typing expiry are tested without
/// sleeping, and a simulation runs hours of faults in seconds.
public protocol EngineClock: Sendable {
  /// The device's wall clock. Display only (and wrong by a day on some phones): order comes
  /// from the server's sequence, never from this.
  func now() -> Date
  /// Monotonic time since an arbitrary origin, for throttles, backoff and metrics.
  func uptime() -> Duration
  /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
  func sleep(for duration: Duration) async throws
}

/// The real clock.
public struct SystemClock: EngineClock {
  private let origin = ContinuousClock.now

  public init() {}

  public func now() -> Date { Date() }

  public func uptime() -> Duration { ContinuousClock.now - origin }

  public func sleep(for duration: Duration) async throws {
    try await Task.sleep(for: duration)
  }
}
