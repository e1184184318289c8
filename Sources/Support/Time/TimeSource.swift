#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one seam to time, for the client engine and the server alike.
///
/// Injected everywhere, so backoff, throttles, expiries and token lifetimes are tested without
/// sleeping, and a simulation runs hours of faults in seconds.
public protocol TimeSource: Sendable {
  /// The wall clock: display, `sentAt`, token expiry. Wrong by hours on some phones, so order
  /// never comes from it.
  func now() -> Timestamp
  /// Monotonic time since an arbitrary origin, for throttles, backoff and metrics.
  func uptime() -> Duration
  /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
  func sleep(for duration: Duration) async throws
}

/// The machine's clocks: `CLOCK_REALTIME` for `now()`, the continuous clock for the rest.
public struct SystemTimeSource: TimeSource {
  private let origin = ContinuousClock.now

  public init() {}

  public func now() -> Timestamp {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Timestamp(nanosecondsSince1970: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
  }

  public func uptime() -> Duration { ContinuousClock.now - origin }

  public func sleep(for duration: Duration) async throws {
    try await Task.sleep(for: duration)
  }
}
