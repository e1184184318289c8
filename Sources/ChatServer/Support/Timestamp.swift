/// A point in wall-clock time: nanoseconds since 1970-01-01T00:00:00Z.
///
/// The server never reads the system clock itself: every `Timestamp` comes from the injected
/// `ServerClock`, so token expiry, rate limits, `sentAt` and `createdAt` replay exactly in tests
/// and in the simulation. The API shows times with millisecond precision; the database stores
/// milliseconds.
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

  /// Whole milliseconds, rounded down (also before 1970).
  public var millisecondsSince1970: Int64 {
    Self.floorDivide(nanosecondsSince1970, 1_000_000)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
  }

  public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
    Timestamp(nanosecondsSince1970: lhs.nanosecondsSince1970 + rhs.nanoseconds)
  }

  public static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
    .nanoseconds(lhs.nanosecondsSince1970 - rhs.nanosecondsSince1970)
  }

  /// RFC 3339 in UTC with milliseconds, as API.md writes every time: `2026-11-30T14:02:03.123Z`.
  public var rfc3339: String {
    let milliseconds = millisecondsSince1970
    let days = Self.floorDivide(milliseconds, 86_400_000)
    let millisecondOfDay = milliseconds - days * 86_400_000
    let (year, month, day) = Self.civilDate(daysSince1970: days)
    let hour = millisecondOfDay / 3_600_000
    let minute = millisecondOfDay / 60_000 % 60
    let second = millisecondOfDay / 1_000 % 60
    let millisecond = millisecondOfDay % 1_000
    return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
      + "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2)).\(Self.pad(millisecond, 3))Z"
  }

  public var description: String { rfc3339 }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width
      ? digits : String(repeating: "0", count: width - digits.count) + digits
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
  }

  /// The proleptic Gregorian date of a day counted from 1970-01-01, by counting 400-year eras
  /// from 0000-03-01 (so the leap day is the last day of each counted year).
  private static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let daysSinceEpochMarch = daysSince1970 + 719_468  // 0000-03-01 → 1970-01-01
    let era = floorDivide(daysSinceEpochMarch, 146_097)
    let dayOfEra = daysSinceEpochMarch - era * 146_097  // 0...146096
    let yearOfEra =
      (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365
    let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 = March … 11 = February
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }
}

extension Duration {
  /// The whole duration in nanoseconds (attoseconds below a nanosecond are dropped).
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }

  /// The duration in seconds, as a `Double`, for histograms.
  var secondsValue: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
