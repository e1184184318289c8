import ChatAPI

/// Coalesces members' raised receipt numbers into `receipts` frames (API.md Part 2, "Read by
/// N"): at most one frame per conversation per `window`, carrying every member whose numbers
/// changed in it.
///
/// Rules a reader could not guess:
/// - A change after a quiet window goes at once; one inside a window waits for its end, with
///   every other change of that window (each member's highest numbers).
/// - Every socket of a conversation gets the same frames, so the limit holds per socket.
/// - The frame goes to the members as of the last change it carries (a removal is a change:
///   the removed member's sockets hear nothing after it).
/// - Windows that ended long ago say nothing any more (a change there goes at once anyway):
///   beyond `windowsLimit` conversations, they are forgotten.
///
/// Time is the caller's (`TimeSource.uptime()`), and so is the timer: when `add` says
/// `.flush(after:)`, the caller starts one, hands it over (`waitForFlush`), and calls
/// `flush(_:at:)` when it fires.
struct ReceiptCoalescer {
  /// How often a socket may get a `receipts` frame of one conversation (API.md Part 2).
  static let window = Duration.milliseconds(250)
  static let windowsLimit = 4_096

  /// What to do with a change.
  enum Step: Equatable {
    /// Send a frame with these numbers now.
    case send([MemberReceipts])
    /// A frame is due after this long: start the timer that flushes it.
    case flush(after: Duration)
    /// The change waits, with the others, for the frame already due.
    case held
  }

  /// One conversation's coalescing.
  private struct Window {
    /// When its last `receipts` frame went.
    var lastFrame: Duration?
    /// A frame is due at the end of the window.
    var isWaiting = false
    /// The changes the next frame carries, by user.
    var pending: [String: MemberReceipts] = [:]
    var recipients: [String] = []
    /// The timer that sends the frame due.
    var flush: Task<Void, Never>?
  }

  private var windows: [String: Window] = [:]

  /// Conversations with a window in memory.
  var count: Int { windows.count }

  /// A member's raised numbers in `conversation`, whose members are now `members`.
  mutating func add(
    _ member: MemberReceipts, in conversation: String, to members: [String], at now: Duration
  ) -> Step {
    var window = windows[conversation] ?? Window()
    window.recipients = members
    if !window.isWaiting, window.lastFrame.map({ now - $0 >= Self.window }) ?? true {
      window.lastFrame = now
      windows[conversation] = window
      return .send([member])
    }
    let held = window.pending[member.userId]
    window.pending[member.userId] = MemberReceipts(
      userId: member.userId, deliveredUpTo: max(held?.deliveredUpTo ?? 0, member.deliveredUpTo),
      readUpTo: max(held?.readUpTo ?? 0, member.readUpTo))
    defer { windows[conversation] = window }
    guard !window.isWaiting else { return .held }
    window.isWaiting = true
    return .flush(after: (window.lastFrame ?? now) + Self.window - now)
  }

  /// The timer `add` asked for.
  mutating func waitForFlush(_ timer: Task<Void, Never>, in conversation: String) {
    windows[conversation]?.flush = timer
  }

  /// The end of a window: its changes in one frame, sorted by user, and to whom; nil when
  /// nothing is due.
  mutating func flush(_ conversation: String, at now: Duration) -> (
    members: [MemberReceipts], recipients: [String]
  )? {
    guard let window = windows[conversation], window.isWaiting else { return nil }
    let members = window.pending.values.sorted { $0.userId < $1.userId }
    windows[conversation] = Window(lastFrame: now)
    guard !members.isEmpty else { return nil }
    if windows.count > Self.windowsLimit { forgetQuietWindows(at: now) }
    return (members, window.recipients)
  }

  /// The timers of the frames due, for a test that moved the clock past them.
  func dueFlushes() -> [Task<Void, Never>] {
    windows.keys.sorted().compactMap { windows[$0]?.flush }
  }

  private mutating func forgetQuietWindows(at now: Duration) {
    windows = windows.filter { _, window in
      window.isWaiting || window.lastFrame.map { now - $0 < Self.window } ?? false
    }
  }
}
