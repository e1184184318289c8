import Foundation
import SQLite
import Support

/// Simulated time and the loop that runs everything: every executor's jobs and every timer, one
/// at a time, on the thread that calls `run`.
///
/// The rule that makes a run a function of its seed: nothing happens except inside `run`. A
/// step either runs one job of one executor (the scheduler's seeded choice among those with
/// work) or, when no executor has work, moves time to the earliest timer and fires it (ties in
/// the order they were set). Time therefore only moves when everything waits: the CPU is
/// infinitely fast, and an hour of backoffs costs nothing.
///
/// Confined to one thread: every method must be called from the thread that made the world (its
/// jobs run there too). `@unchecked Sendable` only so closures that jobs run can capture it.
final class World: @unchecked Sendable {
  /// The wall clock at time zero (2026-11-30 11:46:40 UTC), for the server and the devices.
  static let epoch = Timestamp(secondsSince1970: 1_796_000_000)

  private(set) var now: Duration = .zero
  /// Jobs run so far.
  private(set) var steps = 0
  /// Set at teardown: the network refuses everything.
  var isEnding = false

  private var scheduler: SimRandom
  private var runners: [Runner] = []
  private var heap: [TimerKey] = []
  private var actions: [Int: () -> Void] = [:]
  /// The pending timers marked idle (`schedule(after:idle:)`).
  private var idleTimers: Set<Int> = []
  private var nextTimer = 0

  /// An executor and what the world does around its steps.
  private final class Runner {
    let executor: SteppedExecutor
    var isFrozen = false
    /// Called after each job of this executor (a kill armed to fire mid-work counts down here).
    var afterStep: (() -> Void)?

    init(executor: SteppedExecutor) { self.executor = executor }
  }

  private struct TimerKey: Comparable {
    var deadline: Duration
    var id: Int

    static func < (lhs: TimerKey, rhs: TimerKey) -> Bool {
      (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
    }
  }

  init(scheduler: SimRandom) {
    self.scheduler = scheduler
  }

  // MARK: - Executors

  /// A new executor the scheduler steps from now on.
  func makeExecutor(_ name: String) -> SteppedExecutor {
    let executor = SteppedExecutor(name: name)
    runners.append(Runner(executor: executor))
    return executor
  }

  /// Stops stepping `executor` for good (a kill): its queued jobs never run, unless `thaw`.
  func freeze(_ executor: SteppedExecutor) {
    runner(executor)?.isFrozen = true
  }

  /// Steps a frozen executor again (teardown only: it lets dead incarnations end their tasks).
  func thawAll() {
    for runner in runners { runner.isFrozen = false }
  }

  /// Calls `body` after each job `executor` runs, until it is set again.
  func afterEachStep(of executor: SteppedExecutor, _ body: (() -> Void)?) {
    runner(executor)?.afterStep = body
  }

  private func runner(_ executor: SteppedExecutor) -> Runner? {
    runners.first { $0.executor === executor }
  }

  /// Jobs enqueued from outside the world's thread, over every executor.
  var foreignEnqueues: Int { runners.reduce(0) { $0 + $1.executor.foreignEnqueues } }

  // MARK: - Timers

  /// Runs `action` at `now + delay`. Returns an id for `cancel`. An `idle` timer waits for
  /// nothing but the other side (a held long poll, its request's timeout): `run(…, quietWhenIdle:)`
  /// may call the world quiet with only such timers left.
  @discardableResult
  func schedule(after delay: Duration, idle: Bool = false, _ action: @escaping () -> Void) -> Int {
    nextTimer += 1
    let key = TimerKey(deadline: now + max(delay, .zero), id: nextTimer)
    if idle { idleTimers.insert(key.id) }
    actions[key.id] = { [unowned self] in
      idleTimers.remove(key.id)
      action()
    }
    heap.append(key)
    siftUp(heap.count - 1)
    return key.id
  }

  /// Forgets a timer that has not fired.
  func cancel(_ id: Int) {
    actions[id] = nil
    idleTimers.remove(id)
  }

  var hasTimers: Bool { !actions.isEmpty }

  /// Forgets every timer and executor (the end of a run), breaking the cycles through the
  /// closures they hold. Returns how many timers and queued jobs were left.
  @discardableResult
  func dismantle() -> (timers: Int, jobs: Int) {
    let left = (actions.count, runners.reduce(0) { $0 + $1.executor.pending })
    actions.removeAll()
    idleTimers.removeAll()
    heap.removeAll()
    for runner in runners { runner.afterStep = nil }
    runners.removeAll()
    return left
  }

  // MARK: - Running

  /// Why `run` returned.
  enum Stop: Equatable {
    /// `until` returned true.
    case condition
    /// Time reached the deadline.
    case deadline
    /// Nothing left to run and no timer set: the world is quiet.
    case quiet
    /// The step budget ran out (a loop that never waits).
    case stepBudget
  }

  /// Runs until `until()` holds (checked after every step), time reaches `deadline`, the world
  /// is quiet, or `maxSteps` more jobs have run. With `quietWhenIdle`, a world with only idle
  /// timers left (held long polls) is quiet too.
  @discardableResult
  func run(
    deadline: Duration, maxSteps: Int = .max, quietWhenIdle: Bool = false,
    until: () -> Bool = { false }
  ) -> Stop {
    let budget = maxSteps > Int.max - steps ? Int.max : steps + maxSteps
    while true {
      if until() { return .condition }
      if steps >= budget { return .stepBudget }
      if let runner = pickRunnable() {
        steps += 1
        runner.executor.runNext()
        runner.afterStep?()
        continue
      }
      if quietWhenIdle, !actions.isEmpty, idleTimers.count == actions.count { return .quiet }
      guard let key = popTimer() else { return .quiet }
      guard key.deadline <= deadline else {
        pushBack(key)
        now = max(now, deadline)
        return .deadline
      }
      now = max(now, key.deadline)
      actions.removeValue(forKey: key.id)?()
    }
  }

  private func pickRunnable() -> Runner? {
    var runnable: [Runner] = []
    for runner in runners where !runner.isFrozen && runner.executor.pending > 0 {
      runnable.append(runner)
    }
    switch runnable.count {
    case 0: return nil
    case 1: return runnable[0]
    default: return runnable[scheduler.below(runnable.count)]
    }
  }

  /// The earliest live timer, removed from the heap (cancelled ones are skipped).
  private func popTimer() -> TimerKey? {
    while let top = heap.first {
      let last = heap.removeLast()
      if !heap.isEmpty {
        heap[0] = last
        siftDown(0)
      }
      if actions[top.id] != nil { return top }
    }
    return nil
  }

  private func pushBack(_ key: TimerKey) {
    heap.append(key)
    siftUp(heap.count - 1)
  }

  private func siftUp(_ index: Int) {
    var child = index
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child] < heap[parent] else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private func siftDown(_ index: Int) {
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

  // MARK: - Waiting for async work from the loop

  /// Starts `operation` on `executor` and runs the world until it returns (nil when `timeout`
  /// of simulated time passes first, or the world goes quiet without it).
  func perform<T: Sendable>(
    on executor: SteppedExecutor, timeout: Duration,
    _ operation: sending @escaping @isolated(any) () async -> T
  ) -> T? {
    let box = ResultBox<T>()
    executor.spawn {
      let value = await operation()
      box.value = value
    }
    run(deadline: now + timeout) { box.value != nil }
    return box.value
  }
}

/// Where a task started by the world leaves its result. Touched only on the world's thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
  // @unchecked: read and written only on the world's thread (jobs run there).
  var value: T?
}
