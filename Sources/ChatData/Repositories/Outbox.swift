import ChatAPI
import ChatDomain
import Support

/// Sending (seed 000 §10): the outbox is the unsent rows of the store, posted oldest first, one
/// at a time, each with the client message ID it was saved with. No queue of its own: the
/// database survives a relaunch, so rows left sending by a killed app are simply still queued
/// at the next start.
///
/// The retry policy:
/// - accepted (201, or 200 for a retry the server recognised) → saved as sent, with its
///   sequence (through `CatchUp`, like any message from the server);
/// - timeout, offline, 5xx, 429, or an answer that could not be saved → stays sending; the
///   queue pauses (`RetryPause`: backoff with jitter, never shorter than `Retry-After`) and then
///   posts the same row again, same ID; when the network comes back, a pause the network
///   caused ends at once;
/// - any other 4xx → only that message turns failed; the queue moves on to the next;
/// - a tapped retry puts a failed message at the back of the queue, same ID
///   (`MessagesRepository.retry`).
/// The queue runs while the engine is started.
actor Outbox {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  private let catchUp: CatchUp
  private var isRunning = false
  private var loop: Task<Void, Never>?
  /// Someone asked for a flush while the loop was posting: it looks again before it ends.
  private var wanted = false
  private let pause: RetryPause
  private var pausedByNetwork = false
  /// One post at a time, whoever posts (the loop, or a one-shot `drain`).
  private let posting = KeyedLock<Int>()

  init(context: EngineContext, catchUp: CatchUp) {
    self.context = context
    self.catchUp = catchUp
    pause = RetryPause(context: context)
  }

  private var store: MessageStore { context.store }

  // MARK: - Lifecycle

  /// The app came to the foreground: post what waits.
  func start() {
    isRunning = true
    flush()
  }

  /// The app is going away: no new post starts. A post in flight finishes and its answer is
  /// saved; what is left stays queued.
  func stop() {
    isRunning = false
    pause.end()
  }

  /// Waits for the loop to end (after `stop()`).
  func drained() async {
    await loop?.value
  }

  /// Starts the loop unless it is running; a running loop looks again before it ends.
  func flush() {
    wanted = true
    guard isRunning, loop == nil else { return }
    loop = context.spawn { await self.run() }
  }

  /// The network is back (or a retry was tapped): a pause the network caused ends now.
  func wake() {
    if pausedByNetwork {
      pause.reset()
      pause.end()
    }
    flush()
  }

  private func run() async {
    defer { loop = nil }
    while isRunning {
      wanted = false
      switch await postNext() {
      case nil:
        if wanted { continue }
        return
      case .accepted?, .rejected?:
        pause.reset()
      case .signedOut?:
        stop()
      case .temporary(let error)?:
        await wait(after: error)
      }
    }
  }

  /// Waits out the backoff after a temporary failure.
  private func wait(after error: RequestFailure) async {
    // `stop()` may have run while the post was in flight: a pause must not begin after it.
    guard isRunning else { return }
    let delay = pause.delay(retryAfter: error.retryAfter)
    context.log.write(
      LogRecord(
        .info, "send.will_retry",
        [("reason", error.label), ("attempt", "\(pause.failures)"), ("delay", "\(delay)")]))
    pausedByNetwork = error.isNetworkFailure
    await pause.sleep(delay)
    pausedByNetwork = false
  }

  /// Posts every queued message once, in order, without waiting out a backoff: returns at the
  /// first temporary failure with the number of rows left (the command-line `sync`).
  func drain() async -> Int {
    posting: while true {
      switch await postNext() {
      case .accepted?, .rejected?: continue posting
      case nil, .signedOut?, .temporary?: break posting
      }
    }
    return await size() ?? 0
  }

  /// How many rows wait; nil (logged) when the store cannot be read.
  func size() async -> Int? {
    do {
      return try await store.outboxCount()
    } catch {
      context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
      return nil
    }
  }

  /// Tells the metrics how many rows wait.
  func reportSize() async {
    if let size = await size() { await context.metrics.recordOutboxSize(size) }
  }

  // MARK: - Posting

  /// How one post ended.
  private enum Outcome: Sendable {
    case accepted, rejected, signedOut
    case temporary(RequestFailure)
  }

  /// Posts the oldest queued message, one post at a time whoever posts; nil when nothing is
  /// queued (or the store cannot be read, which is logged: the next flush looks again).
  private func postNext() async -> Outcome? {
    await posting.withLock(0) { () async -> Outcome? in
      let next: MessageRecord?
      do {
        next = try await store.nextUnsent()
      } catch {
        context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
        return nil
      }
      guard let next else { return nil }
      return await post(next)
    }
  }

  /// Posts one row with its client message ID and saves the answer.
  private func post(_ message: MessageRecord) async -> Outcome {
    await context.metrics.recordSendAttempt()
    defer { context.spawn { await self.reportSize() } }
    let postedID =
      context.knownBugs.contains(.retryWithNewID) ? context.ids.next() : message.clientID
    let body = PostItem(clientMessageId: postedID.rawValue, text: message.text)
    do {
      let item = try await context.api.postMessage(body, in: message.conversationID)
      guard var record = MessageRecord(item), record.clientID == postedID else {
        context.log.write(LogRecord(.error, "send.unreadable_reply"))
        return .temporary(.malformedReply("post"))
      }
      record.clientID = message.clientID
      await context.metrics.recordAccepted()
      // Accepted but not saved (a full disk, or another row holds its sequence): the row is
      // still sending; retrying later with the same ID gets the same message back.
      guard let saved = await catchUp.save([record], in: message.conversationID),
        saved.clashes == 0
      else {
        return .temporary(.malformedReply("the accepted message could not be saved"))
      }
      context.log.write(
        LogRecord(.info, "send.accepted", [("sequence", "\(record.sequence ?? 0)")]))
      return .accepted
    } catch .signedOut {
      return .signedOut
    } catch let error
      where error.isTemporary || context.knownBugs.contains(.stopOutboxAtFirst4xx)
    {
      await context.metrics.recordTemporaryFailure()
      return .temporary(error)
    } catch {
      await context.metrics.recordRejected()
      context.log.write(LogRecord(.warning, "send.rejected", [("reason", error.label)]))
      do {
        try await store.markFailed(message.clientID, sender: context.me, reason: reason(error))
      } catch {
        context.log.write(LogRecord(.error, "send.mark_failed", [("error", "\(error)")]))
      }
      await context.metrics.recordNeverSent(message.clientID)
      return .rejected
    }
  }

  private func reason(_ error: RequestFailure) -> String {
    if case .rejected(_, _, let message) = error { return message }
    return error.label
  }
}
