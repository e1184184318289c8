import Foundation
import Observation
import Support

/// Waits, without sleeping, until `condition` holds for a value read from `@Observable`
/// objects: re-reads `observed` each time a property it read changes.
///
/// ```swift
/// try await waitUntil("seven rows", in: model.viewState) { $0.rows.count == 7 }
/// ```
///
/// `timeout` (wall time) only bounds a hang, it never synchronises: a condition that still
/// does not hold by then throws ``WaitTimedOut``, which fails the running test with
/// `expectation`, the call's location and the last value of `observed`. The default is
/// generous because the machine is shared; a wait that succeeds returns as soon as the change
/// it waits for is made.
@MainActor
public func waitUntil<Observed>(
  _ expectation: String,
  in observed: @autoclosure @escaping @MainActor () -> Observed,
  timeout: Duration = .seconds(10),
  fileID: String = #fileID, line: Int = #line,
  until condition: @escaping @MainActor (Observed) -> Bool
) async throws {
  let deadline = ContinuousClock.now + timeout
  while !condition(observed()) {
    try Task.checkCancellation()
    guard ContinuousClock.now < deadline else {
      throw WaitTimedOut(
        expectation: expectation, timeout: timeout, location: "\(fileID):\(line)",
        lastSeen: String(describing: observed()))
    }
    await nextChange(of: { _ = condition(observed()) }, orDeadline: deadline)
  }
}

/// Why ``waitUntil(_:in:timeout:fileID:line:until:)`` gave up: what it waited for, where, and
/// the last value it saw.
public struct WaitTimedOut: Error, CustomStringConvertible {
  public let expectation: String
  public let timeout: Duration
  /// `File.swift:line` of the call.
  public let location: String
  public let lastSeen: String

  public var description: String {
    "waited \(timeout) for \(expectation) (\(location)); last saw: \(lastSeen)"
  }
}

/// Returns when a property `tracked` reads changes, at `deadline`, or when the task is
/// cancelled, whichever comes first.
@MainActor
private func nextChange(
  of tracked: @escaping @MainActor () -> Void, orDeadline deadline: ContinuousClock.Instant
) async {
  let resumed = ResumeOnce()
  await withTaskCancellationHandler {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      resumed.set(continuation)
      withObservationTracking {
        tracked()
      } onChange: {
        resumed.resume()
      }
      let timer = Task {
        try? await Task.sleep(until: deadline, clock: .continuous)
        resumed.resume()
      }
      resumed.onResume { timer.cancel() }
    }
  } onCancel: {
    resumed.resume()
  }
}

/// Resumes a continuation at most once, whoever asks first (a change, the deadline, a
/// cancellation), even if asked before the continuation is set.
private final class ResumeOnce: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Void, Never>?
    var resumed = false
    var cleanup: (@Sendable () -> Void)?
  }

  private let state = Locked(State())

  func set(_ continuation: CheckedContinuation<Void, Never>) {
    let resumeNow = state.withLock { state in
      if state.resumed { return true }
      state.continuation = continuation
      return false
    }
    if resumeNow { continuation.resume() }
  }

  /// Runs `body` once resumed (at once if already resumed).
  func onResume(_ body: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state in
      if state.resumed { return true }
      state.cleanup = body
      return false
    }
    if runNow { body() }
  }

  func resume() {
    let (first, continuation, cleanup) = state.withLock { state in
      let first = !state.resumed
      state.resumed = true
      defer {
        state.continuation = nil
        state.cleanup = nil
      }
      return (first, state.continuation, state.cleanup)
    }
    guard first else { return }
    cleanup?()
    continuation?.resume()
  }
}
