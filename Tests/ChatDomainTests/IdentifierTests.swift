import ChatDomain
import Foundation
import Support
import Testing

@Suite struct IdentifierTests {
  @Test func userIDsFollowTheContractAlphabet() {
    #expect(UserID(rawValue: "alice.b-c_9") != nil)
    #expect(UserID(rawValue: "") == nil)
    #expect(UserID(rawValue: "Alice") == nil)
    #expect(UserID(rawValue: "a b") == nil)
    #expect(UserID(rawValue: String(repeating: "a", count: 64)) != nil)
    #expect(UserID(rawValue: String(repeating: "a", count: 65)) == nil)
  }

  @Test func messageIDsAreCanonicalLowercaseUUIDs() {
    let id = MessageID(rawValue: "0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B")
    #expect(id?.rawValue == "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    #expect(MessageID(rawValue: "not-a-uuid") == nil)
  }

  @Test(arguments: [
    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "0193A1B2-c3d4-7E5F-8a9b-0C1D2E3F4A5B",
    "00000000-0000-0000-0000-000000000000", "0193a1b2c3d4-7e5f-8a9b-0c1d2e3f4a5b-",
    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5bb",
    "0193a1b2-c3d4-7e5f-8a9b_0c1d2e3f4a5b", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5g",
    "{0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5}", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5é", "",
  ])
  func messageIDsAcceptExactlyWhatFoundationsUUIDParses(text: String) {
    let expected = UUID(uuidString: text)?.uuidString.lowercased()
    #expect(MessageID(rawValue: text)?.rawValue == expected)
  }

  @Test func conversationIDsMustBeSafeInAPath() {
    #expect(ConversationID(rawValue: "c_123-abc") != nil)
    #expect(ConversationID(rawValue: "a/b") == nil)
    #expect(ConversationID(rawValue: "") == nil)
  }
}

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
