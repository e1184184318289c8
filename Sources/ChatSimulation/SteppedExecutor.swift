import Foundation
import SQLite
import Support

/// A serial executor that runs nothing by itself: it only queues jobs, and the `World` runs them
/// one at a time, from its own loop, choosing which executor to step with the seed.
///
/// Every engine (one per device incarnation) and every server incarnation has one. A job runs
/// to its next suspension point and no further, so a device or the server can be stopped
/// between any two jobs (a kill) and the rest of the world goes on. Jobs must only be enqueued
/// from the world's own thread: anything else means work escaped the simulation (a `Task` on the
/// global pool, a real thread), and `Simulation.runPhases` reports it as a violation.
final class SteppedExecutor: SerialTaskExecutor, TaskExecutor, @unchecked Sendable {
  // @unchecked: `jobs`, `head` and `foreignEnqueues` are only touched while holding `lock`.
  let name: String
  private let lock = NSLock()
  private var jobs: [UnownedJob] = []
  private var head = 0
  private let owner: pthread_t
  private var foreign = 0

  init(name: String) {
    self.name = name
    owner = pthread_self()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let isOwner = pthread_equal(pthread_self(), owner) != 0
    lock.withLock {
      if !isOwner { foreign += 1 }
      jobs.append(job)
    }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  func isSameExclusiveExecutionContext(other: SteppedExecutor) -> Bool {
    self === other
  }

  /// Jobs waiting to run.
  var pending: Int { lock.withLock { jobs.count - head } }

  /// Jobs enqueued from a thread other than the world's.
  var foreignEnqueues: Int { lock.withLock { foreign } }

  /// Runs the oldest queued job; false when there was none.
  @discardableResult
  func runNext() -> Bool {
    let job: UnownedJob? = lock.withLock {
      guard head < jobs.count else { return nil }
      let job = jobs[head]
      head += 1
      if head == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        head = 0
      } else if head > 256, head * 2 > jobs.count {
        jobs.removeFirst(head)
        head = 0
      }
      return job
    }
    guard let job else { return false }
    job.runSynchronously(
      isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    return true
  }
}
