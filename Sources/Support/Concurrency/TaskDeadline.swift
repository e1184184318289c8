/// Waits for `task`'s value, but no longer than until `deadline` (on `clock`'s uptime; nil: no
/// deadline) or the waiting task's cancellation, whichever comes first; nil when it gave up.
/// `task` itself is not cancelled: it runs on, and what it does still counts (a page being
/// saved is saved whole).
///
/// For work a caller must not wait out: a push handled within the host's time budget, a long
/// poll that a stop must not wait for. The helper tasks run on `executor` (the caller's), so a
/// run on a stepped executor stays deterministic.
public func value<T: Sendable>(
  of task: Task<T, Never>, until deadline: Duration?, clock: any TimeSource,
  on executor: any SerialTaskExecutor
) async -> T? {
  let race = Race<T>()
  let waiter = executor.spawn { race.finish(await task.value) }
  let timer = deadline.map { deadline in
    executor.spawn {
      guard (try? await clock.sleep(for: deadline - clock.uptime())) != nil else { return }
      race.finish(nil)
    }
  }
  let result = await withTaskCancellationHandler {
    await withCheckedContinuation { race.wait($0) }
  } onCancel: {
    race.finish(nil)
  }
  waiter.cancel()
  timer?.cancel()
  return result
}

/// The first of several finishers wins; the one waiter hears it once.
private final class Race<T: Sendable>: Sendable {
  private struct State {
    var result: T??
    var continuation: CheckedContinuation<T?, Never>?
  }

  private let state = Locked(State())

  func wait(_ continuation: CheckedContinuation<T?, Never>) {
    let ready: T?? = state.withLock { state in
      if let result = state.result { return result }
      state.continuation = continuation
      return nil
    }
    if let ready { continuation.resume(returning: ready) }
  }

  func finish(_ value: T?) {
    let waiting: CheckedContinuation<T?, Never>? = state.withLock { state in
      guard state.result == nil else { return nil }
      state.result = .some(value)
      defer { state.continuation = nil }
      return state.continuation
    }
    waiting?.resume(returning: value)
  }
}
