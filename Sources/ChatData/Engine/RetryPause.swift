import Support

/// The one way the engine's retry loops wait (the outbox, catch-ups, receipts, learning the
/// conversations, the socket): the retry policy's delay for the next failure in a row (backoff
/// with jitter, never shorter than a capped `Retry-After`), slept on the engine's clock in a
/// task of its own, so that something else (the network coming back, a stop) can end the wait
/// early without cancelling the loop that waits.
///
/// Confined to the actor that owns it; one wait at a time (a new wait ends the one before).
final class RetryPause {
  private let context: EngineContext
  private var backoff: Backoff
  private var sleeping: Task<Void, Never>?

  init(context: EngineContext) {
    self.context = context
    backoff = Backoff(context.retryPolicy)
  }

  /// Failures in a row since the last `reset()`.
  var failures: Int { backoff.failures }

  /// Counts one more failure in a row and returns the wait it earns (for the caller's log).
  func delay(retryAfter: Duration? = nil) -> Duration {
    backoff.failed(retryAfter: retryAfter, random: context.random)
  }

  /// Sleeps `delay` unless `end()`, or the cancellation of the waiting task, comes first.
  func sleep(_ delay: Duration) async {
    sleeping?.cancel()
    let clock = context.clock
    // `try?`: the only error a sleep throws is its cancellation, which is an early end.
    let task = context.spawn { try? await clock.sleep(for: delay) }
    sleeping = task
    await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
    if sleeping == task { sleeping = nil }
  }

  /// Counts one more failure in a row and waits the delay it earns.
  func wait(retryAfter: Duration? = nil) async {
    await sleep(delay(retryAfter: retryAfter))
  }

  /// An attempt succeeded (or the reason for waiting went away): the next failure waits the
  /// shortest time again.
  func reset() {
    backoff.reset()
  }

  /// Ends the wait in progress now, if any: the loop tries again at once.
  func end() {
    sleeping?.cancel()
  }

  var isWaiting: Bool { sleeping != nil }
}
