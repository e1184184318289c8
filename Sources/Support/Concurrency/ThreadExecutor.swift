import Foundation

/// A serial executor that is also a task executor, so one value can both isolate actors
/// (`unownedExecutor`) and be the preferred executor of the tasks they start.
public protocol SerialTaskExecutor: SerialExecutor, TaskExecutor {}

extension SerialTaskExecutor {
  /// Starts `operation` as a task whose code, and the code of the nonisolated functions it
  /// calls, runs on this executor.
  @discardableResult
  public func spawn<T: Sendable>(
    _ operation: sending @escaping @isolated(any) () async -> T
  ) -> Task<T, Never> {
    Task(executorPreference: self, operation: operation)
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
      job.runSynchronously(
        isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
  }
}

/// Hands the executor to its thread, which is created before `self` is complete.
private final class ThreadBox: @unchecked Sendable {
  // @unchecked: `executor` is written once before the thread starts, read only by that thread
  // afterwards; `started` is a semaphore, safe from any thread.
  var executor: ThreadExecutor?
  /// Signalled once `Thread.start()` has returned.
  let started = DispatchSemaphore(value: 0)
}
