import Foundation
import Support
import Synchronization

/// The one stepped executor: a serial executor that runs nothing by itself. It only queues
/// jobs, and the `World` runs them one at a time, from its own loop, choosing which executor to
/// step (the simulation's seeded scheduler).
///
/// Every engine (one per device incarnation) and every server incarnation has one. A job runs
/// to its next suspension point and no further, so a device or the server can be stopped
/// between any two jobs (a kill) and the rest of the world goes on. Jobs must only be enqueued
/// from the world's own thread: anything else means work escaped the simulation (a `Task` on the
/// global pool, a real thread), and `Simulation.runPhases` reports it as a violation.
public final class SteppedExecutor: SerialTaskExecutor, TaskExecutor, @unchecked Sendable {
  // @unchecked: `owner`, a `pthread_t`, is not `Sendable` but never changes after `init`; every
  // other field is in `queue`.
  private struct Queue {
    var jobs: [UnownedJob] = []
    var head = 0
    var foreign = 0
  }

  public let name: String
  private let queue = Mutex(Queue())
  private let owner: pthread_t

  public init(name: String) {
    self.name = name
    owner = pthread_self()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let isOwner = pthread_equal(pthread_self(), owner) != 0
    queue.withLock {
      if !isOwner { $0.foreign += 1 }
      $0.jobs.append(job)
    }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  public func isSameExclusiveExecutionContext(other: SteppedExecutor) -> Bool {
    self === other
  }

  /// Jobs waiting to run.
  public var pending: Int { queue.withLock { $0.jobs.count - $0.head } }

  /// Jobs enqueued from a thread other than the world's.
  public var foreignEnqueues: Int { queue.withLock { $0.foreign } }

  /// Runs the oldest queued job; false when there was none.
  @discardableResult
  public func runNext() -> Bool {
    let job: UnownedJob? = queue.withLock { queue in
      guard queue.head < queue.jobs.count else { return nil }
      let job = queue.jobs[queue.head]
      queue.head += 1
      if queue.head == queue.jobs.count {
        queue.jobs.removeAll(keepingCapacity: true)
        queue.head = 0
      } else if queue.head > 256, queue.head * 2 > queue.jobs.count {
        queue.jobs.removeFirst(queue.head)
        queue.head = 0
      }
      return job
    }
    guard let job else { return false }
    job.runSynchronously(
      isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    return true
  }
}
