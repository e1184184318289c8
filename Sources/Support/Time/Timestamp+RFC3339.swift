extension Timestamp {
  /// RFC 3339 in UTC with milliseconds, as API.md writes every time: `2026-11-30T14:02:03.123Z`.
  public var rfc3339: String {
    let (days, millisecondOfDay) = millisecondsSince1970.floorDivided(by: 86_400_000)
    let (year, month, day) = CivilCalendar.date(days: Int(days))
    let hour = Int(millisecondOfDay / 3_600_000)
    let minute = Int(millisecondOfDay / 60_000 % 60)
    let second = Int(millisecondOfDay / 1_000 % 60)
    let millisecond = Int(millisecondOfDay % 1_000)
    var utf8: [UInt8] = []
    utf8.reserveCapacity(24)
    func append(_ value: Int, width: Int) {
      let digits = Array(String(value).utf8)
      if digits.count < width {
        utf8.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count))
      }
      utf8.append(contentsOf: digits)
    }
    append(year, width: 4)
    utf8.append(UInt8(ascii: "-"))
    append(month, width: 2)
    utf8.append(UInt8(ascii: "-"))
    append(day, width: 2)
    utf8.append(UInt8(ascii: "T"))
    append(hour, width: 2)
    utf8.append(UInt8(ascii: ":"))
    append(minute, width: 2)
    utf8.append(UInt8(ascii: ":"))
    append(second, width: 2)
    utf8.append(UInt8(ascii: "."))
    append(millisecond, width: 3)
    utf8.append(UInt8(ascii: "Z"))
    return String(decoding: utf8, as: UTF8.self)
  }

  /// Reads an RFC 3339 date-time (`2026-11-30T14:02:03.123Z`, `…T14:02:03+01:00`, `t` and `z`
  /// in lower case, any number of fraction digits, a leap second as :60); nil for anything else,
  /// and for a date a `Timestamp` cannot hold (before 1677 or after 2262).
  ///
  /// Parsed by hand: a catch-up of thousands of messages parses thousands of times, and a
  /// formatter per call would dominate it.
  public init?(rfc3339 text: String) {
    var reader = DigitReader(Array(text.utf8)[...])
    guard let year = reader.number(4), reader.take("-"), let month = reader.number(2),
      reader.take("-"), let day = reader.number(2), reader.take("T", "t"),
      let hour = reader.number(2), reader.take(":"), let minute = reader.number(2),
      reader.take(":"), let second = reader.number(2),
      (1...12).contains(month), (1...CivilCalendar.daysIn(year: year, month: month)).contains(day),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    var nanoseconds: Int64 = 0
    if reader.take(".") {
      var scale: Int64 = 100_000_000
      var digits = 0
      while let digit = reader.digit() {
        // Digits below a nanosecond are read and dropped.
        nanoseconds += Int64(digit) * scale
        scale /= 10
        digits += 1
      }
      guard digits > 0 else { return nil }
    }
    var offset = 0
    if reader.take("Z", "z") {
      offset = 0
    } else if let sign = reader.sign() {
      guard let hours = reader.number(2), reader.take(":"), let minutes = reader.number(2),
        hours < 24, minutes < 60
      else { return nil }
      offset = sign * (hours * 3_600 + minutes * 60)
    } else {
      return nil
    }
    guard reader.isAtEnd else { return nil }
    let days = CivilCalendar.days(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second - offset)
    // Nanoseconds in an `Int64` reach from 1677 to 2262: a date outside is refused, not
    // wrapped.
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let (total, carry) = whole.addingReportingOverflow(nanoseconds)
    guard !overflow, !carry else { return nil }
    self.init(nanosecondsSince1970: total)
  }
}

/// Reads ASCII digits and signs from the front of UTF-8 bytes.
private struct DigitReader {
  private var bytes: ArraySlice<UInt8>

  init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

  var isAtEnd: Bool { bytes.isEmpty }

  mutating func digit() -> Int? {
    guard let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
      return nil
    }
    bytes = bytes.dropFirst()
    return Int(byte - UInt8(ascii: "0"))
  }

  /// Exactly `count` digits.
  mutating func number(_ count: Int) -> Int? {
    var value = 0
    for _ in 0..<count {
      guard let digit = digit() else { return nil }
      value = value * 10 + digit
    }
    return value
  }

  /// Consumes one of `characters` if it comes next.
  mutating func take(_ characters: Unicode.Scalar...) -> Bool {
    guard let byte = bytes.first, characters.contains(where: { UInt8(ascii: $0) == byte }) else {
      return false
    }
    bytes = bytes.dropFirst()
    return true
  }

  /// `+` as 1, `-` as -1.
  mutating func sign() -> Int? {
    if take("+") { return 1 }
    if take("-") { return -1 }
    return nil
  }
}
