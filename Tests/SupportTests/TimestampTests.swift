import Foundation
import Support
import Testing

@Suite struct TimestampTests {
  @Test func rfc3339MatchesFoundationsFormatter() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    var random = SplitMix64(seed: 11)
    var samples: [Int64] = [
      0, 1, 999, 1_000, 86_399_999, 86_400_000, 951_782_400_000, 4_107_542_399_999,
    ]
    for _ in 0..<2_000 { samples.append(Int64.random(in: 0...4_102_444_800_000, using: &random)) }
    for milliseconds in samples {
      let ours = Timestamp(millisecondsSince1970: milliseconds).rfc3339
      let theirs = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
      #expect(ours == theirs, "\(milliseconds)")
    }
  }

  @Test func formatsTheExampleOfTheContract() {
    #expect(
      Timestamp(millisecondsSince1970: 1_796_047_323_123).rfc3339 == "2026-11-30T14:02:03.123Z")
    #expect(Timestamp(nanosecondsSince1970: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
  }

  /// Dates read back as written, Foundation agreeing on the instant: the contract's example,
  /// offsets, lower-case letters, any number of fraction digits, a leap second.
  @Test(arguments: [
    ("2026-11-30T14:02:03.123Z", Int64(1_796_047_323_123_000_000)),
    ("2026-11-30t14:02:03.123z", 1_796_047_323_123_000_000),
    ("2026-11-30T15:02:03.123+01:00", 1_796_047_323_123_000_000),
    ("2026-11-30T09:32:03.123-04:30", 1_796_047_323_123_000_000),
    ("2026-11-30T14:02:03Z", 1_796_047_323_000_000_000),
    ("2026-11-30T14:02:03.123456789Z", 1_796_047_323_123_456_789),
    ("1970-01-01T00:00:00.000Z", 0),
    ("1969-12-31T23:59:59.999Z", -1_000_000),
    ("2016-12-31T23:59:60Z", 1_483_228_800_000_000_000),
  ])
  func parsesRFC3339(text: String, nanoseconds: Int64) throws {
    let parsed = try #require(Timestamp(rfc3339: text))
    #expect(parsed.nanosecondsSince1970 == nanoseconds)
  }

  @Test(arguments: [
    "", "2026-11-30", "2026-11-30T14:02:03", "2026-11-30 14:02:03Z", "2026-13-01T00:00:00Z",
    "2026-00-01T00:00:00Z", "2026-11-31T00:00:00Z", "2026-02-29T00:00:00Z",
    "2100-02-29T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T14:60:00Z",
    "2026-11-30T14:02:61Z", "2026-11-30T14:02:03.Z", "2026-11-30T14:02:03.123",
    "26-11-30T14:02:03Z",
    "2026-11-30T14:02:03.123+0100", "2026-11-30T14:02:03.123+24:00", "2026-11-30T14:02:03.123Zx",
    "２０２６-11-30T14:02:03Z",
  ])
  func refusesWhatIsNotRFC3339(text: String) {
    #expect(Timestamp(rfc3339: text) == nil)
  }

  /// Leap days exist in leap years only (every fourth, not centuries, but every fourth
  /// century), and each reads back as it is written.
  @Test func leapDaysRoundTrip() throws {
    for text in [
      "2000-02-29T12:00:00.000Z", "2024-02-29T00:00:00.000Z", "1904-02-29T23:59:59.999Z",
      "2096-02-29T00:00:00.000Z",
    ] {
      let parsed = try #require(Timestamp(rfc3339: text), "\(text)")
      #expect(parsed.rfc3339 == text)
    }
    #expect(Timestamp(rfc3339: "1900-02-29T00:00:00Z") == nil)
    #expect(
      Timestamp(rfc3339: "2024-03-01T00:00:00Z")! - Timestamp(rfc3339: "2024-02-28T00:00:00Z")!
        == .seconds(2 * 86_400))
  }

  /// 2038-01-19T03:14:07Z is the last second a signed 32-bit `time_t` holds: one second later
  /// is simply the next second here, both ways.
  @Test func theYear2038IsAnOrdinaryYear() throws {
    let last32Bit = Timestamp(secondsSince1970: Int64(Int32.max))
    #expect(last32Bit.rfc3339 == "2038-01-19T03:14:07.000Z")
    #expect((last32Bit + .seconds(1)).rfc3339 == "2038-01-19T03:14:08.000Z")
    #expect(
      Timestamp(rfc3339: "2038-01-19T03:14:08Z")?.nanosecondsSince1970 == 2_147_483_648_000_000_000)
    #expect(
      Timestamp(rfc3339: "2106-02-07T06:28:16Z")?.nanosecondsSince1970 == 4_294_967_296_000_000_000)
  }

  /// A date beyond what nanoseconds in an `Int64` hold is refused, never wrapped around.
  @Test func datesATimestampCannotHoldAreRefused() {
    #expect(Timestamp(rfc3339: "1600-02-29T00:00:00Z") == nil)
    #expect(Timestamp(rfc3339: "9999-12-31T23:59:59.999Z") == nil)
    #expect(Timestamp(rfc3339: "2262-04-11T23:47:16.854Z") != nil)
    #expect(Timestamp(rfc3339: "2262-04-11T23:47:16.855Z") == nil)
  }

  @Test func aDateAndATimestampAreTheSameInstant() {
    let timestamp = Timestamp(millisecondsSince1970: 1_796_047_323_123)
    #expect(Timestamp(timestamp.date) == timestamp)
    #expect(abs(timestamp.date.timeIntervalSince1970 - 1_796_047_323.123) < 1e-6)
  }
}
