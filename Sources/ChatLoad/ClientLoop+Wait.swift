import Dispatch
import Synchronization
import Wire

extension ClientLoop {
  /// Runs `start` on the loop's thread with a function to call with the answer, and blocks the
  /// calling thread until that is called (the first call counts) or `deadline` (monotonic
  /// nanoseconds, `CLOCK_MONOTONIC`) passes: then nil. Never call it on the loop's thread.
  public func wait<Answer: Sendable>(
    until deadline: Int64,
    _ start: @escaping @Sendable (_ reply: @escaping @Sendable (Answer) -> Void) -> Void
  ) -> Answer? {
    let answer = Mutex<Answer?>(nil)
    let ready = DispatchSemaphore(value: 0)
    execute {
      start { value in
        answer.withLock { $0 = $0 ?? value }
        ready.signal()
      }
    }
    let wait = max(0, deadline - monotonicNanoseconds())
    guard ready.wait(timeout: .now() + .nanoseconds(Int(wait))) == .success else { return nil }
    return answer.withLock { $0 }
  }
}
