#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A point in wall-clock time: nanoseconds since 1970-01-01T00:00:00Z.
///
/// Whatever needs the time asks a `TimeSource`, never the system clock itself, so token expiry,
/// rate limits, backoff and every time shown replay exactly in tests and in the simulation.
/// API.md writes times with millisecond precision (`rfc3339`, `init?(rfc3339:)`).
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var nanosecondsSince1970: Int64

  public init(nanosecondsSince1970: Int64) {
    self.nanosecondsSince1970 = nanosecondsSince1970
  }

  public init(millisecondsSince1970: Int64) {
    self.nanosecondsSince1970 = millisecondsSince1970 * 1_000_000
  }

  public init(secondsSince1970: Int64) {
    self.nanosecondsSince1970 = secondsSince1970 * 1_000_000_000
  }

  /// The same instant as `date`, to the millisecond: a `Date` is a `Double` of seconds since
  /// 2001 and carries no exact nanoseconds, and API.md's times are milliseconds.
  public init(_ date: Date) {
    self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1_000).rounded()))
  }

  /// Whole milliseconds, rounded down (also before 1970).
  public var millisecondsSince1970: Int64 {
    nanosecondsSince1970.floorDivided(by: 1_000_000).quotient
  }

  /// The same instant as a `Date`, for code that displays it.
  public var date: Date {
    Date(timeIntervalSince1970: Double(nanosecondsSince1970) / 1e9)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
  }

  public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
    Timestamp(nanosecondsSince1970: lhs.nanosecondsSince1970 + rhs.nanoseconds)
  }

  public static func - (lhs: Timestamp, rhs: Duration) -> Timestamp {
    Timestamp(nanosecondsSince1970: lhs.nanosecondsSince1970 - rhs.nanoseconds)
  }

  public static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
    .nanoseconds(lhs.nanosecondsSince1970 - rhs.nanosecondsSince1970)
  }

  public var description: String { rfc3339 }
}

extension Duration {
  /// The whole duration in nanoseconds (attoseconds below a nanosecond are dropped).
  public var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }

  /// The whole duration in milliseconds, rounded toward zero.
  public var milliseconds: Int64 { nanoseconds / 1_000_000 }

  /// The duration in seconds, as a `Double` (histograms, reports).
  public var secondsValue: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

extension BinaryInteger {
  /// Division rounding toward minus infinity, and the remainder that goes with it (always ≥ 0
  /// for a positive divisor): what calendar arithmetic before 1970 needs.
  package func floorDivided(by divisor: Self) -> (quotient: Self, remainder: Self) {
    var quotient = self / divisor
    if self % divisor != 0 && (self < 0) != (divisor < 0) { quotient -= 1 }
    return (quotient, self - quotient * divisor)
  }
}
