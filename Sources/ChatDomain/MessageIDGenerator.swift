import ChatIdentifiers
import Foundation
import Support

/// Makes client message IDs.
public protocol MessageIDGenerator: Sendable {
  func next() -> MessageID
  /// Tells the generator about an ID made earlier (perhaps by a previous launch), so that the
  /// next ones sort after it even if the device clock has gone back since.
  func observe(_ id: MessageID)
}

/// Makes UUID version 7 IDs (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter
/// (method 1 of §6.2), then 62 random bits.
///
/// IDs from one generator strictly increase, even when the clock stands still or goes back: the
/// timestamp never decreases and the counter orders IDs within one millisecond. That is what lets
/// unsent messages sort "in client-ID order" as they were written.
public final class UUIDv7Generator: MessageIDGenerator, Sendable {
  private struct State {
    var millis: UInt64 = 0
    var counter: UInt16 = 0
  }

  private let state = Locked(State())
  private let now: @Sendable () -> Date
  private let random: @Sendable () -> UInt64

  /// - Parameters:
  ///   - now: the wall clock (injected, so tests can set it a day wrong).
  ///   - random: 64 random bits per call.
  public init(
    now: @escaping @Sendable () -> Date = { Date() },
    random: @escaping @Sendable () -> UInt64 = {
      var generator = SystemRandomNumberGenerator()
      return generator.next()
    }
  ) {
    self.now = now
    self.random = random
  }

  public func next() -> MessageID {
    let clockMillis = UInt64(max(0, now().timeIntervalSince1970 * 1000))
    let (millis, counter) = state.withLock { state -> (UInt64, UInt16) in
      if clockMillis > state.millis {
        state.millis = clockMillis
        state.counter = 0
      } else if state.counter < 0xFFF {
        state.counter += 1
      } else {
        state.millis += 1
        state.counter = 0
      }
      return (state.millis, state.counter)
    }
    return MessageID(Self.uuid(millis: millis, counter: counter, random: random()))
  }

  public func observe(_ id: MessageID) {
    guard let (millis, counter) = Self.timestampAndCounter(of: id) else { return }
    state.withLock { state in
      if millis > state.millis || (millis == state.millis && counter > state.counter) {
        state.millis = millis
        state.counter = counter
      }
    }
  }

  static func uuid(millis: UInt64, counter: UInt16, random: UInt64) -> UUID {
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (40 - 8 * index)) }
    bytes[6] = 0x70 | UInt8(truncatingIfNeeded: counter >> 8)
    bytes[7] = UInt8(truncatingIfNeeded: counter)
    for index in 8..<16 {
      bytes[index] = UInt8(truncatingIfNeeded: random >> (56 - 8 * (index - 8)))
    }
    bytes[8] = 0x80 | (bytes[8] & 0x3F)
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  /// The timestamp and counter of a version 7 ID; nil for other versions.
  static func timestampAndCounter(of id: MessageID) -> (UInt64, UInt16)? {
    let uuid = id.uuid.uuid
    guard uuid.6 >> 4 == 7 else { return nil }
    let head = [uuid.0, uuid.1, uuid.2, uuid.3, uuid.4, uuid.5]
    let millis = head.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let counter = UInt16(uuid.6 & 0x0F) << 8 | UInt16(uuid.7)
    return (millis, counter)
  }
}
