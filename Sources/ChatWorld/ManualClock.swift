import Support

/// The one clock of the embedded world: time moves only when a test or the simulation says so.
/// It is the engine's and the server's `TimeSource` at once (through `offset(by:)` for a device
/// whose wall clock is wrong) and the world's timers: `schedule(after:idle:_:)` runs an action
/// at a deadline, and `sleep(for:)` is such a timer that resumes its task.
///
/// Timers fire in deadline order, ties in the order they were set. Two ways to move time:
/// - `fireNext(notAfter:)` fires one timer, the earliest (the simulation's `World` runs every
///   job it made runnable before it fires the next, even one due at the same instant);
/// - `step(toward:)` and `advance(by:)` fire every timer due at the earliest deadline at once
///   (the tests' `TestWorld.advance(by:)` settles its thread between deadlines).
///
/// The wall clock can be set wrong on purpose (`shiftWallClock(by:)`).
public final class ManualClock: TimeSource, Sendable {
  /// The wall clock at time zero unless said otherwise: 2026-11-30T14:13:20Z.
  public static let epoch = Timestamp(secondsSince1970: 1_796_000_000)

  private struct TimerKey: Comparable {
    var deadline: Duration
    var id: Int

    static func < (lhs: TimerKey, rhs: TimerKey) -> Bool {
      (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
    }
  }

  /// A timer's action. `@unchecked Sendable`: the actions `sleep` sets are `Sendable`; any other
  /// is set and fired on the one thread that owns the clock (the simulation's world thread), as
  /// `schedule(after:idle:_:)` requires.
  private struct Action: @unchecked Sendable {
    let run: () -> Void
  }

  private struct State {
    var elapsed: Duration = .zero
    var wallOrigin: Timestamp
    var heap: [TimerKey] = []
    var actions: [Int: Action] = [:]
    /// The pending timers marked idle.
    var idle: Set<Int> = []
    var nextID = 0
  }

  private let state: Locked<State>

  /// Starts at `wallClock`.
  public init(wallClock: Timestamp = ManualClock.epoch) {
    state = Locked(State(wallOrigin: wallClock))
  }

  public func now() -> Timestamp {
    state.withLock { $0.wallOrigin + $0.elapsed }
  }

  public func uptime() -> Duration {
    state.withLock { $0.elapsed }
  }

  /// The wall clock at uptime zero, and uptime, read at once.
  fileprivate func reading() -> (origin: Timestamp, elapsed: Duration) {
    state.withLock { ($0.wallOrigin, $0.elapsed) }
  }

  /// Moves the wall clock (not uptime) by `offset`: a phone set a day wrong.
  public func shiftWallClock(by offset: Duration) {
    state.withLock { $0.wallOrigin = $0.wallOrigin + offset }
  }

  /// This clock as a device sees it: the wall clock `offset` wrong, uptime and timers shared.
  /// With `wholeMilliseconds`, the wall clock reads in whole milliseconds of uptime (the
  /// simulation's devices and server: the seeds' runs were pinned reading it so).
  public func offset(by offset: Duration, wholeMilliseconds: Bool = false) -> any TimeSource {
    OffsetClock(base: self, offset: offset, wholeMilliseconds: wholeMilliseconds)
  }

  /// Suspends until `duration` has passed on this clock; cancelling the task wakes it with
  /// `CancellationError`. A sleep begun inside `IdleWait` is an idle timer.
  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    guard duration > .zero else { return }
    let sleeper = Sleeper()
    let idle = IdleWait.isActive
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        sleeper.start(continuation, clock: self, after: duration, idle: idle)
      }
    } onCancel: {
      sleeper.cancel(clock: self)
    }
  }

  // MARK: - Timers

  /// Runs `action` at `uptime() + delay`, on the thread that moves time past it. Returns an id
  /// for `cancel`. An `idle` timer waits for nothing but the other side (a held long poll, its
  /// request's timeout): `World.run(…, quietWhenIdle:)` may call the world quiet with only such
  /// timers left.
  ///
  /// `action` need not be `Sendable`, so the clock must then be confined to one thread: the one
  /// that schedules and fires its timers (the simulation's world thread).
  @discardableResult
  public func schedule(after delay: Duration, idle: Bool = false, _ action: @escaping () -> Void)
    -> Int
  {
    let action = Action(run: action)
    return state.withLock { state in
      state.nextID += 1
      let key = TimerKey(deadline: state.elapsed + max(delay, .zero), id: state.nextID)
      if idle { state.idle.insert(key.id) }
      state.actions[key.id] = action
      state.heap.append(key)
      Self.siftUp(&state.heap, from: state.heap.count - 1)
      return key.id
    }
  }

  /// Forgets a timer that has not fired.
  public func cancel(_ id: Int) {
    state.withLock { state in
      state.actions[id] = nil
      state.idle.remove(id)
    }
  }

  /// Whether any timer is set.
  public var hasTimers: Bool { state.withLock { !$0.actions.isEmpty } }

  /// Whether timers are set and every one of them is idle.
  public var hasOnlyIdleTimers: Bool {
    state.withLock { !$0.actions.isEmpty && $0.idle.count == $0.actions.count }
  }

  /// Forgets every timer (the end of a simulated run, breaking the cycles through the closures
  /// they hold); returns how many were set.
  @discardableResult
  public func removeAllTimers() -> Int {
    state.withLock { state in
      defer {
        state.actions.removeAll()
        state.idle.removeAll()
        state.heap.removeAll()
      }
      return state.actions.count
    }
  }

  /// What `fireNext(notAfter:)` did.
  public enum Firing: Equatable, Sendable {
    /// It fired the earliest timer, moving time to its deadline.
    case fired
    /// The earliest timer is after the deadline: time moved to the deadline.
    case deadline
    /// No timer is set; time did not move.
    case none
  }

  /// Fires the earliest timer if it is due by `deadline` (moving time to it), else moves time
  /// to `deadline`.
  public func fireNext(notAfter deadline: Duration) -> Firing {
    let (firing, action) = state.withLock { state -> (Firing, Action?) in
      guard let key = Self.popTimer(&state) else { return (.none, nil) }
      guard key.deadline <= deadline else {
        state.heap.append(key)
        Self.siftUp(&state.heap, from: state.heap.count - 1)
        state.elapsed = max(state.elapsed, deadline)
        return (.deadline, nil)
      }
      state.elapsed = max(state.elapsed, key.deadline)
      state.idle.remove(key.id)
      return (.fired, state.actions.removeValue(forKey: key.id))
    }
    action?.run()
    return firing
  }

  /// Moves time to the earliest deadline not after `target` and fires every timer due then (in
  /// the order they were set); returns false (moving time to `target`) when none is due.
  @discardableResult
  public func step(toward target: Duration) -> Bool {
    let due = state.withLock { state -> [Action] in
      guard let first = Self.popTimer(&state) else {
        state.elapsed = max(state.elapsed, target)
        return []
      }
      guard first.deadline <= target else {
        state.heap.append(first)
        Self.siftUp(&state.heap, from: state.heap.count - 1)
        state.elapsed = max(state.elapsed, target)
        return []
      }
      state.elapsed = max(state.elapsed, first.deadline)
      var keys = [first]
      while let top = state.heap.first, top.deadline <= first.deadline,
        let next = Self.popTimer(&state)
      {
        keys.append(next)
      }
      return keys.compactMap { key in
        state.idle.remove(key.id)
        return state.actions.removeValue(forKey: key.id)
      }
    }
    for action in due { action.run() }
    return !due.isEmpty
  }

  /// Moves time forward by `duration` at once, firing every timer due by then in deadline
  /// order, without waiting for what they wake to run (for code that reads the time and never
  /// sleeps, like the server; engines need `TestWorld.advance(by:)`, which lets each wake
  /// settle).
  public func advance(by duration: Duration) {
    let target = uptime() + duration
    while step(toward: target) {}
  }

  // MARK: - The heap

  /// The earliest live timer, removed from the heap (cancelled ones are skipped).
  private static func popTimer(_ state: inout State) -> TimerKey? {
    while let top = state.heap.first {
      let last = state.heap.removeLast()
      if !state.heap.isEmpty {
        state.heap[0] = last
        siftDown(&state.heap, from: 0)
      }
      if state.actions[top.id] != nil { return top }
    }
    return nil
  }

  private static func siftUp(_ heap: inout [TimerKey], from index: Int) {
    var child = index
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child] < heap[parent] else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private static func siftDown(_ heap: inout [TimerKey], from index: Int) {
    var parent = index
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count, heap[left] < heap[smallest] { smallest = left }
      if right < heap.count, heap[right] < heap[smallest] { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

/// The world's clock with one device's wall clock set `offset` wrong.
private struct OffsetClock: TimeSource {
  let base: ManualClock
  let offset: Duration
  let wholeMilliseconds: Bool

  func now() -> Timestamp {
    let (origin, elapsed) = base.reading()
    guard wholeMilliseconds else { return origin + elapsed + offset }
    return origin + .milliseconds((elapsed + offset).milliseconds)
  }

  func uptime() -> Duration { base.uptime() }
  func sleep(for duration: Duration) async throws { try await base.sleep(for: duration) }
}

/// One sleep: resumed once, by its timer or by cancellation, whichever comes first.
private final class Sleeper: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Void, any Error>?
    var timer: Int?
    var cancelled = false
  }

  private let state = Locked(State())

  func start(
    _ continuation: CheckedContinuation<Void, any Error>, clock: ManualClock, after: Duration,
    idle: Bool
  ) {
    let cancelled = state.withLock { state -> Bool in
      guard !state.cancelled else { return true }
      state.continuation = continuation
      state.timer = clock.schedule(after: after, idle: idle) { [self] in self.finish(nil) }
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
  }

  func cancel(clock: ManualClock) {
    let timer = state.withLock { state -> Int? in
      state.cancelled = true
      defer { state.timer = nil }
      return state.timer
    }
    if let timer { clock.cancel(timer) }
    finish(CancellationError())
  }

  private func finish(_ error: (any Error)?) {
    let continuation = state.withLock { state in
      defer {
        state.continuation = nil
        state.timer = nil
      }
      return state.continuation
    }
    guard let continuation else { return }
    if let error {
      continuation.resume(throwing: error)
    } else {
      continuation.resume()
    }
  }
}
