import Support

/// The world's clock, with this device's wall clock set `offset` wrong.
struct OffsetClock: TimeSource {
  let base: ManualClock
  let offset: Duration

  func now() -> Timestamp { base.now() + offset }
  func uptime() -> Duration { base.uptime() }
  func sleep(for duration: Duration) async throws { try await base.sleep(for: duration) }
}
