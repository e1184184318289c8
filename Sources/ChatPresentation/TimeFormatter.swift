import Foundation

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
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents(
      [.year, .month, .day, .hour, .minute, .weekday], from: date)
    let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    let today = calendar.startOfDay(for: now())
    let day = calendar.startOfDay(for: date)
    let days = calendar.dateComponents([.day], from: day, to: today).day ?? 0
    if days == 0 { return time }
    if (1..<7).contains(days) {
      let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
      return "\(names[((parts.weekday ?? 1) - 1) % 7]) \(time)"
    }
    return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
  }
}
