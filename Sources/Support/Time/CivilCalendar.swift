/// Day counts and dates of the proleptic Gregorian calendar, in whole days since 1970-01-01
/// (Howard Hinnant's days-from-civil and civil-from-days). Foundation's `Calendar` is slow and
/// allocates; the wire format and the screen's time labels need only this.
public enum CivilCalendar {
  /// Days since 1970-01-01 of a date (negative before it).
  public static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date of a day counted from 1970-01-01, counting 400-year eras from 0000-03-01 (so the
  /// leap day is the last day of each counted year).
  public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthPosition = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthPosition + 2) / 5 + 1
    let month = monthPosition < 10 ? monthPosition + 3 : monthPosition - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// Whether `year` has a 29 February: every fourth year, except centuries not divisible by 400.
  public static func isLeap(_ year: Int) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  /// How many days `month` (1–12) of `year` has.
  public static func daysIn(year: Int, month: Int) -> Int {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}
