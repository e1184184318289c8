import Foundation
import Support

/// Simulated time and the loop that runs everything: every executor's jobs and every timer of
/// the world's `ManualClock`, one at a time, on the thread that calls `run`.
///
/// The rule that makes a run a function of its seed: nothing happens except inside `run`. A
/// step either runs one job of one executor (the scheduler's choice among those with work:
/// `pick` is given how many have work and returns which, the simulation's seeded choice) or,
/// when no executor has work, moves time to the earliest timer and fires it (ties in the order
/// they were set). Time therefore only moves when everything waits: the CPU is infinitely fast,
/// and an hour of backoffs costs nothing.
///
/// Confined to one thread: every method must be called from the thread that made the world (its
/// jobs and timers run there too). `@unchecked Sendable` only so closures that jobs run can
/// capture it.
public final class World: @unchecked Sendable {
  /// The world's time and timers.
  public let clock: ManualClock
  /// Jobs run so far.
  public private(set) var steps = 0
  /// Set at teardown: the network refuses everything.
  public var isEnding = false

  private let pick: (Int) -> Int
  private var runners: [Runner] = []

  /// Time since the world began.
  public var now: Duration { clock.uptime() }

  /// An executor and what the world does around its steps.
  private final class Runner {
    let executor: SteppedExecutor
    var isFrozen = false
    /// Called after each job of this executor (a kill armed to fire mid-work counts down here).
    var afterStep: (() -> Void)?

    init(executor: SteppedExecutor) { self.executor = executor }
  }

  /// A world starting at `wallClock`, whose scheduler `pick(n)` returns which of `n` executors
  /// with work runs next (in `0..<n`; asked only when `n` > 1).
  public init(wallClock: Timestamp = ManualClock.epoch, pick: @escaping (Int) -> Int) {
    clock = ManualClock(wallClock: wallClock)
    self.pick = pick
  }

  // MARK: - Executors

  /// A new executor the scheduler steps from now on.
  public func makeExecutor(_ name: String) -> SteppedExecutor {
    let executor = SteppedExecutor(name: name)
    runners.append(Runner(executor: executor))
    return executor
  }

  /// Stops stepping `executor` for good (a kill): its queued jobs never run, unless `thaw`.
  public func freeze(_ executor: SteppedExecutor) {
    runner(executor)?.isFrozen = true
  }

  /// Steps a frozen executor again (teardown only: it lets dead incarnations end their tasks).
  public func thawAll() {
    for runner in runners { runner.isFrozen = false }
  }

  /// Calls `body` after each job `executor` runs, until it is set again.
  public func afterEachStep(of executor: SteppedExecutor, _ body: (() -> Void)?) {
    runner(executor)?.afterStep = body
  }

  private func runner(_ executor: SteppedExecutor) -> Runner? {
    runners.first { $0.executor === executor }
  }

  /// Jobs enqueued from outside the world's thread, over every executor.
  public var foreignEnqueues: Int { runners.reduce(0) { $0 + $1.executor.foreignEnqueues } }

  // MARK: - Timers

  /// Runs `action` at `now + delay` (`ManualClock.schedule(after:idle:_:)`). Returns an id for
  /// `cancel`.
  @discardableResult
  public func schedule(after delay: Duration, idle: Bool = false, _ action: @escaping () -> Void)
    -> Int
  {
    clock.schedule(after: delay, idle: idle, action)
  }

  /// Forgets a timer that has not fired.
  public func cancel(_ id: Int) {
    clock.cancel(id)
  }

  public var hasTimers: Bool { clock.hasTimers }

  /// Forgets every timer and executor (the end of a run), breaking the cycles through the
  /// closures they hold. Returns how many timers and queued jobs were left.
  @discardableResult
  public func dismantle() -> (timers: Int, jobs: Int) {
    let jobs = runners.reduce(0) { $0 + $1.executor.pending }
    let timers = clock.removeAllTimers()
    for runner in runners { runner.afterStep = nil }
    runners.removeAll()
    return (timers, jobs)
  }

  // MARK: - Running

  /// Why `run` returned.
  public enum Stop: Equatable {
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
  public func run(
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
      if quietWhenIdle, clock.hasOnlyIdleTimers { return .quiet }
      switch clock.fireNext(notAfter: deadline) {
      case .fired: continue
      case .deadline: return .deadline
      case .none: return .quiet
      }
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
    default: return runnable[pick(runnable.count)]
    }
  }

  // MARK: - Waiting for async work from the loop

  /// Starts `operation` on `executor` and runs the world until it returns (nil when `timeout`
  /// of simulated time passes first, or the world goes quiet without it).
  public func perform<T: Sendable>(
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
public final class ResultBox<T: Sendable>: @unchecked Sendable {
  // @unchecked: read and written only on the world's thread (jobs run there).
  public var value: T?

  public init() {}
}
