import ChatPresentation
import Foundation
import Testing

@Suite struct TimeFormatterTests {
  /// Monday 2026-03-30, 12:00 in Berlin: the day after the clocks went forward (a 23-hour day).
  let berlin = TimeFormatter(
    timeZone: TimeZone(identifier: "Europe/Berlin")!,
    now: { Date(timeIntervalSince1970: 1_774_864_800) })

  @Test(arguments: [
    (1_774_852_200, "08:30"),  // today
    (1_774_821_600, "00:00"),  // today's first minute
    (1_774_821_540, "Sun 23:59"),  // yesterday's last minute, across the 23-hour day
    (1_774_688_400, "Sat 10:00"),  // two days ago
    (1_773_997_200, "2026-03-20"),  // over a week ago
  ])
  func timesAreRelativeToTheLocalDay(seconds: Int, expected: String) {
    #expect(berlin.string(for: Date(timeIntervalSince1970: TimeInterval(seconds))) == expected)
  }

  /// The day passed in is the one used: a screen formats all its rows against one "today".
  @Test func oneTodayFormatsManyDatesAlike() {
    let weekLater = TimeFormatter(
      timeZone: TimeZone(identifier: "Europe/Berlin")!,
      now: { Date(timeIntervalSince1970: 1_774_864_800 + 8 * 86_400) })
    let date = Date(timeIntervalSince1970: 1_774_688_400)
    #expect(berlin.string(for: date, today: weekLater.today()) == "2026-03-28")
    #expect(berlin.string(for: date, today: berlin.today()) == "Sat 10:00")
  }

  @Test func datesBeforeTheEpochAndLeapDaysAreRight() {
    let utc = TimeFormatter(
      timeZone: TimeZone(identifier: "UTC")!, now: { Date(timeIntervalSince1970: 1_774_864_800) })
    #expect(utc.string(for: Date(timeIntervalSince1970: -86_400)) == "1969-12-31")
    #expect(utc.string(for: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29")
    #expect(utc.string(for: Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29")
  }

  /// The arithmetic agrees with Foundation's calendar, day after day for a year, in a zone
  /// with clock changes.
  @Test func agreesWithTheCalendar() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = berlin.timeZone
    let now = berlin.now()
    let today = calendar.startOfDay(for: now)
    for hours in stride(from: 0, to: 24 * 400, by: 7) {
      let date = now.addingTimeInterval(-Double(hours) * 3_600 - 1_234)
      let parts = calendar.dateComponents(
        [.year, .month, .day, .hour, .minute, .weekday], from: date)
      let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: today)
        .day!
      let time = String(format: "%02d:%02d", parts.hour!, parts.minute!)
      let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
      let expected =
        days == 0
        ? time
        : (1..<7).contains(days)
          ? "\(names[parts.weekday! - 1]) \(time)"
          : String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
      #expect(berlin.string(for: date) == expected, "\(date)")
    }
  }

  @Test func changingTheTimeZoneChangesTheResult() {
    var formatter = berlin
    formatter.timeZone = TimeZone(identifier: "UTC")!
    #expect(formatter.string(for: Date(timeIntervalSince1970: 1_774_852_200)) == "06:30")
  }
}
