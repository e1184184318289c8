import Foundation
import Observation

/// Waits, without sleeping, until `condition` holds for an `@Observable` object: re-checks each
/// time an observed property changes.
@MainActor
public func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
  while !condition() {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumed = ResumeOnce(continuation)
      withObservationTracking {
        _ = condition()
      } onChange: {
        resumed.resume()
      }
    }
  }
}

/// Resumes a continuation at most once.
final class ResumeOnce: @unchecked Sendable {
  // @unchecked: `continuation` is touched only while holding `lock`.
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Void, Never>?

  init(_ continuation: CheckedContinuation<Void, Never>) {
    self.continuation = continuation
  }

  func resume() {
    let continuation = lock.withLock {
      defer { self.continuation = nil }
      return self.continuation
    }
    continuation?.resume()
  }
}
