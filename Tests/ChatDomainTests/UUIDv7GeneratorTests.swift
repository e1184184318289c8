import ChatDomain
import Foundation
import Support
import Testing

@Suite struct UUIDv7GeneratorTests {
  final class FakeClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_790_000_000))

    var now: Date {
      get { time.value }
      set { time.withLock { $0 = newValue } }
    }
  }

  @Test func idsAreVersion7WithTheClocksMilliseconds() {
    let clock = FakeClock()
    let generator = UUIDv7Generator(now: { clock.now }, random: { 0 })
    let id = generator.next()
    #expect(id.rawValue.hasPrefix("01a"))
    let uuid = id.uuid.uuid
    #expect(uuid.6 >> 4 == 7)
    #expect(uuid.8 >> 6 == 0b10)
    let millis = [uuid.0, uuid.1, uuid.2, uuid.3, uuid.4, uuid.5].reduce(UInt64(0)) {
      $0 << 8 | UInt64($1)
    }
    #expect(millis == 1_790_000_000_000)
  }

  @Test func idsIncreaseWithinOneMillisecond() {
    let clock = FakeClock()
    let generator = UUIDv7Generator(now: { clock.now }, random: { .max })
    let ids = (0..<5000).map { _ in generator.next() }
    #expect(ids == ids.sorted())
    #expect(Set(ids).count == ids.count)
  }

  @Test func aClockThatGoesBackADayStillGivesIncreasingIDs() {
    let clock = FakeClock()
    let generator = UUIDv7Generator(now: { clock.now }, random: { 42 })
    let first = generator.next()
    clock.now = clock.now.addingTimeInterval(-86_400)
    let second = generator.next()
    #expect(first < second)
  }

  @Test func observingAnEarlierLaunchsIDKeepsTheOrderAcrossRestarts() {
    let clock = FakeClock()
    let old = UUIDv7Generator(now: { clock.now }, random: { 7 }).next()
    clock.now = clock.now.addingTimeInterval(-3_600)
    let restarted = UUIDv7Generator(now: { clock.now }, random: { 7 })
    restarted.observe(old)
    #expect(old < restarted.next())
  }
}
