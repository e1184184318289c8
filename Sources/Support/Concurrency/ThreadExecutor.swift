import Foundation

/// A serial executor that is also a task executor where the platform has task executors
/// (Linux, iOS 18, macOS 15), so one value can both isolate actors (`unownedExecutor`) and be
/// the preferred executor of the tasks they start.
///
/// Older Apple platforms (iOS 17, macOS 14) have custom actor executors but not task
/// executors: there the actors still run on this executor, and only the nonisolated code of the
/// tasks they start runs on the global pool. The determinism the tests and the simulation rely
/// on is Linux's, where every conformer is a task executor too.
public protocol SerialTaskExecutor: SerialExecutor {}

extension SerialTaskExecutor {
  /// Starts `operation` as a task whose code, and the code of the nonisolated functions it
  /// calls, runs on this executor (where the platform has task executors).
  @discardableResult
  public func spawn<T: Sendable>(
    _ operation: sending @escaping @isolated(any) () async -> T
  ) -> Task<T, Never> {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *),
      let preferred = self as? any TaskExecutor
    {
      return Task(executorPreference: preferred, operation: operation)
    }
    return Task(operation: operation)
  }

  /// Runs `job` here, as this executor's serial and (where there are) task executor.
  func run(_ job: UnownedJob) {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *),
      let preferred = self as? any TaskExecutor
    {
      job.runSynchronously(
        isolatedTo: asUnownedSerialExecutor(), taskExecutor: preferred.asUnownedTaskExecutor())
    } else {
      job.runSynchronously(on: asUnownedSerialExecutor())
    }
  }
}

/// A serial executor with a thread of its own.
///
/// A database and the actors that use it run here, so blocking calls (SQLite, `fsync`) never
/// occupy a thread of Swift's cooperative pool, and every job runs in the order it was
/// enqueued.
public final class ThreadExecutor: SerialTaskExecutor, @unchecked Sendable {
  // @unchecked: `jobs` and `stopped` are read and written only while holding `condition`.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var head = 0
  private var stopped = false
  private let thread: Thread

  /// Starts the thread, named `name` for debuggers and `top`. The thread runs until
  /// `shutdown()`.
  public init(name: String) {
    let box = ThreadBox()
    thread = Thread {
      // Set from inside: on Linux a name given before `start()` is not applied. And only once
      // `start()` has returned: corelibs Foundation drops a name set before `start()` has
      // recorded the new pthread, which a thread that runs at once can beat.
      box.started.wait()
      Thread.current.name = name
      box.executor?.runLoop()
    }
    box.executor = self
    thread.start()
    box.started.signal()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  public func isSameExclusiveExecutionContext(other: ThreadExecutor) -> Bool {
    self === other
  }

  /// Jobs waiting to run.
  var pendingJobs: Int {
    condition.lock()
    defer { condition.unlock() }
    return jobs.count - head
  }

  /// Returns once the executor has no job queued and none running: everything started on it
  /// is waiting for something outside (a timer, the network, an event). Tests use this instead
  /// of sleeping.
  public func waitUntilIdle() async {
    while true {
      let idle = await spawn { self.pendingJobs == 0 }.value
      if idle { return }
    }
  }

  /// Lets the thread end once the queued jobs have run.
  public func shutdown() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }

  private func runLoop() {
    while true {
      condition.lock()
      while head == jobs.count && !stopped { condition.wait() }
      if head == jobs.count {
        condition.unlock()
        return
      }
      let job = jobs[head]
      head += 1
      if head > 1024 && head * 2 > jobs.count {
        jobs.removeFirst(head)
        head = 0
      }
      condition.unlock()
      run(job)
    }
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension ThreadExecutor: TaskExecutor {}

/// Hands the executor to its thread, which is created before `self` is complete.
private final class ThreadBox: @unchecked Sendable {
  // @unchecked: `executor` is written once before the thread starts, read only by that thread
  // afterwards; `started` is a semaphore, safe from any thread.
  var executor: ThreadExecutor?
  /// Signalled once `Thread.start()` has returned.
  let started = DispatchSemaphore(value: 0)
}
