import ChatDomain
import Foundation
import Support

/// Formats message times for display: "14:02" today, "Mon 14:02" within a week, else
/// "2026-11-30". The time zone and "now" are injected so tests do not depend on the machine.
public struct TimeFormatter: Sendable {
  public var timeZone: TimeZone
  public var now: @Sendable () -> Date

  public init(timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() }) {
    self.timeZone = timeZone
    self.now = now
  }

  public func string(for date: Date) -> String {
    string(for: date, today: today())
  }

  /// The current local day, for `string(for:today:)`.
  public func today() -> LocalDay {
    LocalDay(now(), in: timeZone)
  }

  /// `string(for:)` with "today" worked out once by the caller, for many dates at a time.
  ///
  /// Plain arithmetic on the local time (the zone's offset at that instant, so a clock change
  /// is right), no `Calendar`: a screen formats every row it shows.
  public func string(for date: Date, today: LocalDay) -> String {
    let local = LocalDay(date, in: timeZone)
    let time =
      Self.twoDigits(local.secondOfDay / 3600) + ":"
      + Self.twoDigits(local.secondOfDay / 60 % 60)
    let days = today.number - local.number
    if days == 0 { return time }
    if (1..<7).contains(days) {
      // Day 0 (1970-01-01) was a Thursday.
      let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
      return names[((local.number % 7) + 7) % 7] + " " + time
    }
    let (year, month, day) = local.civilDate
    return String(year) + "-" + Self.twoDigits(month) + "-" + Self.twoDigits(day)
  }

  private static func twoDigits(_ value: Int) -> String {
    value < 10 ? "0" + String(value) : String(value)
  }
}

/// A day on the local calendar, as a number of days since 1970-01-01, and the second within it.
public struct LocalDay: Sendable, Equatable {
  /// Days since 1970-01-01 in the time zone.
  public let number: Int
  /// Seconds since local midnight.
  public let secondOfDay: Int

  init(_ date: Date, in timeZone: TimeZone) {
    let seconds =
      Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
    let (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
    number = second < 0 ? days - 1 : days
    secondOfDay = second < 0 ? second + 86_400 : second
  }

  /// Year, month and day of the proleptic Gregorian calendar.
  var civilDate: (year: Int, month: Int, day: Int) { CivilCalendar.date(days: number) }
}
