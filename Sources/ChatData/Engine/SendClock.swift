import Foundation
import Support

/// The time the engine has seen pass, in seconds, kept across launches: the clock of the
/// stale-send rule ("a message that waited longer than 24 h asks first").
///
/// While the engine runs it follows the monotonic clock (`uptime`), so moving the phone's date
/// a day forward or back changes nothing; between launches, when nothing runs to measure, it
/// adds the wall-clock gap since the last checkpoint, never a negative one. A row's age is
/// `now()` less the value saved with it when it entered the outbox.
final class SendClock: Sendable {
  private let clock: any TimeSource
  /// `now()` at `uptime`: where this launch's measure starts.
  private let origin: Locked<(elapsed: Double, uptime: Duration)>

  /// The clock of a launch, continued from the checkpoint an earlier launch saved (`saved`,
  /// nil on a new database).
  init(clock: any TimeSource, saved: String?) {
    self.clock = clock
    var elapsed = 0.0
    if let parts = saved?.split(separator: " "), parts.count == 2,
      let was = Double(parts[0]), let wall = Double(parts[1])
    {
      elapsed = was + max(0, clock.now().date.timeIntervalSince1970 - wall)
    }
    origin = Locked((elapsed, clock.uptime()))
  }

  /// Seconds the engine has seen pass since its database was made.
  func now() -> Double {
    let origin = origin.value
    return origin.elapsed + (clock.uptime() - origin.uptime).secondsValue
  }

  /// What to save so the next launch continues from here: `now()` and the wall clock.
  func checkpoint() -> String {
    "\(now()) \(clock.now().date.timeIntervalSince1970)"
  }

  /// Where the checkpoint is kept (`sync_state`).
  static let settingKey = "send.clock"
}
