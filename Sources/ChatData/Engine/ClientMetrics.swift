import ChatDomain
import ChatIdentifiers
import SQLite
import Support

/// The client's figures (seed 000 §12): send-to-sent time, send failure rate, outbox size,
/// reconnects, catch-up size, time to open a conversation. Counts and durations only: no
/// message text, no IDs.
actor ClientMetrics {
  nonisolated let executor: any SerialTaskExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  private var snapshot = ClientMetricsSnapshot()
  /// When each of my messages saved by this run was saved as sending, until it turns sent.
  private var savedAt: [MessageID: Duration] = [:]
  private var sendToSent = DurationSamples()
  private var openTimes = DurationSamples()
  private let sentWatchers = Broadcaster<SentMessage>(buffering: .unbounded)

  init(executor: any SerialTaskExecutor) {
    self.executor = executor
  }

  func recordSendAttempt() { snapshot.sendAttempts += 1 }
  func recordAccepted() { snapshot.sendsAccepted += 1 }
  /// One of my messages was saved as sending (or queued again by a tapped retry) at `time`,
  /// the engine clock's `uptime()`.
  func recordSaved(_ id: MessageID, at time: Duration) {
    savedAt[id] = time
  }

  /// One of my messages is held as sent now: from "saved as sending" to "sent", by whichever
  /// path the acknowledgement came (the post's reply or the socket's echo); counted once, and
  /// only for messages saved by this run.
  func recordSent(_ id: MessageID, at time: Duration) {
    guard let saved = savedAt.removeValue(forKey: id) else { return }
    sendToSent.add(time - saved)
    sentWatchers.yield(SentMessage(id: id, sentAt: time))
  }

  /// One of my messages was refused for good: it will not turn sent.
  func recordNeverSent(_ id: MessageID) {
    savedAt[id] = nil
  }

  /// Every message `recordSent` hears of from now on (see `ChatEngine.sentMessages()`).
  func sentMessages() -> AsyncStream<SentMessage> {
    sentWatchers.subscribe { [weak self] id in
      guard let self else { return }
      self.executor.spawn { await self.removeSentWatcher(id) }
    }
  }

  private func removeSentWatcher(_ id: Int) {
    sentWatchers.remove(id)
  }

  /// Ends every `sentMessages()` stream (the engine is closing).
  func finishSubscriptions() {
    sentWatchers.finish()
  }
  func recordTemporaryFailure() { snapshot.temporaryFailures += 1 }
  func recordRejected() { snapshot.sendsRejected += 1 }
  func recordConnected(reconnect: Bool) {
    snapshot.connections += 1
    if reconnect { snapshot.reconnects += 1 }
  }
  func recordCatchUp(messages: Int) {
    snapshot.catchUps += 1
    snapshot.catchUpMessages += messages
    snapshot.lastCatchUpSize = messages
  }
  func recordGap() { snapshot.gapsDetected += 1 }
  func recordOpen(after duration: Duration) { openTimes.add(duration) }
  func recordOutboxSize(_ size: Int) { snapshot.outboxSize = size }

  func current() -> ClientMetricsSnapshot {
    var result = snapshot
    result.sendToSent = sendToSent.summary
    result.timeToOpen = openTimes.summary
    return result
  }
}

/// The last 1,000 samples of a duration.
struct DurationSamples {
  private var samples: [Duration] = []
  private var next = 0
  private var total = 0
  private let capacity = 1000

  mutating func add(_ sample: Duration) {
    total += 1
    if samples.count < capacity {
      samples.append(sample)
    } else {
      samples[next] = sample
      next = (next + 1) % capacity
    }
  }

  var summary: DurationSummary {
    guard !samples.isEmpty else { return DurationSummary() }
    let sorted = samples.sorted()
    func percentile(_ p: Double) -> Duration {
      sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
    return DurationSummary(
      count: total, p50: percentile(0.5), p99: percentile(0.99), max: sorted.last ?? .zero)
  }
}
