import ChatDomain
import Foundation

/// RFC 3339 times, as API.md writes them (`2026-11-30T14:02:03.123Z`).
///
/// Parsed by hand: a catch-up of thousands of messages parses thousands of times, and a
/// formatter per call would dominate it.
enum APIDate {
  static func parse(_ text: String) -> Date? {
    var utf8 = Array(text.utf8)[...]
    func number(_ count: Int) -> Int? {
      guard utf8.count >= count else { return nil }
      var value = 0
      for byte in utf8.prefix(count) {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      utf8 = utf8.dropFirst(count)
      return value
    }
    func expect(_ characters: UInt8...) -> Bool {
      guard let first = utf8.first, characters.contains(first) else { return false }
      utf8 = utf8.dropFirst()
      return true
    }
    guard let year = number(4), expect(45), let month = number(2), expect(45),
      let day = number(2), expect(84, 116), let hour = number(2), expect(58),
      let minute = number(2), expect(58), let second = number(2),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    var fraction = 0.0
    if utf8.first == 46 {
      utf8 = utf8.dropFirst()
      var scale = 0.1
      var digits = 0
      while let byte = utf8.first, (48...57).contains(byte) {
        fraction += Double(byte - 48) * scale
        scale /= 10
        digits += 1
        utf8 = utf8.dropFirst()
      }
      guard digits > 0 else { return nil }
    }
    var offset = 0
    if expect(90, 122) {
      offset = 0
    } else if let sign = utf8.first, sign == 43 || sign == 45 {
      utf8 = utf8.dropFirst()
      guard let offsetHours = number(2), expect(58), let offsetMinutes = number(2) else {
        return nil
      }
      offset = (offsetHours * 60 + offsetMinutes) * 60 * (sign == 45 ? -1 : 1)
    } else {
      return nil
    }
    guard utf8.isEmpty else { return nil }
    let days = CivilCalendar.days(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  static func format(_ date: Date) -> String {
    let millisTotal = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
    let (daysTotal, millisOfDay) = millisTotal.floorDivided(by: 86_400_000)
    let (year, month, day) = CivilCalendar.date(days: daysTotal)
    let hour = millisOfDay / 3_600_000
    let minute = millisOfDay / 60_000 % 60
    let second = millisOfDay / 1000 % 60
    let millis = millisOfDay % 1000
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
      + "\(pad(second, 2)).\(pad(millis, 3))Z"
  }
}

extension Int {
  fileprivate func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
    let quotient = (self >= 0 ? self : self - divisor + 1) / divisor
    return (quotient, self - quotient * divisor)
  }
}
