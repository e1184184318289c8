import Foundation

/// The server's only source of time.
///
/// Production uses `SystemClock`; tests and the simulation inject a clock they move by hand.
/// The service asks for `now()` once per request (and once more to measure its duration), never
/// from a timer: the server schedules nothing on its own.
public protocol ServerClock: Sendable {
  func now() -> Timestamp
}

/// The machine's real-time clock (`CLOCK_REALTIME`).
public struct SystemClock: ServerClock {
  public init() {}

  public func now() -> Timestamp {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Timestamp(nanosecondsSince1970: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
  }
}
