import Foundation
import Support
import Testing

@Suite struct CivilCalendarTests {
  /// Every day from 1600 to 2400 maps to its date and back, and agrees with Foundation's
  /// Gregorian calendar.
  @Test func daysAndDatesAgreeWithFoundationForEightCenturies() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let first = CivilCalendar.days(year: 1600, month: 1, day: 1)
    let last = CivilCalendar.days(year: 2400, month: 12, day: 31)
    for days in stride(from: first, through: last, by: 1) {
      let (year, month, day) = CivilCalendar.date(days: days)
      #expect(CivilCalendar.days(year: year, month: month, day: day) == days)
      if days % 97 == 0 {
        let parts = calendar.dateComponents(
          [.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
        #expect([parts.year, parts.month, parts.day] == [year, month, day], "\(days)")
      }
    }
  }

  @Test func leapYearsAreEveryFourthButNotCenturiesUnlessTheFourth() {
    #expect(CivilCalendar.isLeap(2024))
    #expect(!CivilCalendar.isLeap(2026))
    #expect(!CivilCalendar.isLeap(1900))
    #expect(CivilCalendar.isLeap(2000))
    #expect(!CivilCalendar.isLeap(2100))
    #expect(CivilCalendar.daysIn(year: 2024, month: 2) == 29)
    #expect(CivilCalendar.daysIn(year: 2100, month: 2) == 28)
    #expect((1...12).map { CivilCalendar.daysIn(year: 2026, month: $0) }.reduce(0, +) == 365)
  }

  @Test func theEpochAndTheDaysAroundIt() {
    #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
    #expect(CivilCalendar.days(year: 1969, month: 12, day: 31) == -1)
    #expect(CivilCalendar.date(days: -1) == (1969, 12, 31))
    #expect(CivilCalendar.date(days: 24_855) == (2038, 1, 19))
  }
}
