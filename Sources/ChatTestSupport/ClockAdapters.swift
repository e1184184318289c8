import ChatData
import ChatServer
import Foundation

/// The world's clock, with this device's wall clock set `offset` seconds wrong.
struct OffsetClock: EngineClock {
  let base: ManualClock
  let offset: TimeInterval

  func now() -> Date { base.now().addingTimeInterval(offset) }
  func uptime() -> Duration { base.uptime() }
  func sleep(for duration: Duration) async throws { try await base.sleep(for: duration) }
}

/// The manual clock, as the server's clock.
struct ServerClockAdapter: ServerClock {
  let clock: ManualClock

  func now() -> Timestamp {
    Timestamp(nanosecondsSince1970: Int64((clock.now().timeIntervalSince1970 * 1e9).rounded()))
  }
}
