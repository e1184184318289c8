import ChatServer
import Synchronization

/// A clock that moves only when a test moves it.
final class ManualClock: ServerClock {
  private let current: Mutex<Timestamp>

  /// Starts at 2026-11-30T14:02:03.123Z unless told otherwise.
  init(_ start: Timestamp = Timestamp(millisecondsSince1970: 1_796_047_323_123)) {
    current = Mutex(start)
  }

  func now() -> Timestamp { current.withLock { $0 } }

  func advance(by duration: Duration) {
    current.withLock { $0 = $0 + duration }
  }
}
