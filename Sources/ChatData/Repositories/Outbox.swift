import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// Sending (seed 000 §10, seed 003 deep dive 1): the outbox is the unsent rows of the store,
/// posted oldest first and one at a time *per conversation* ("send in order per chat, one in
/// flight at a time per chat"), each with the client message ID it was saved with; the
/// conversations send side by side, so one held by 429s or a slow reply holds up no other. No
/// queue of its own: the database survives a relaunch, so rows left sending by a killed app are
/// simply still queued at the next start. My edits and deletes of messages the server may hold
/// are rows of the outbox too (API.md Part 2), queued behind the message they change.
///
/// Each row is marked when its first post starts, and keeps the body of that post for every
/// retry (`OutboxRows.startPosting`): a retry of the same ID with another body would be 409.
/// Until the mark, an edit or delete changes the row in place; a first post that certainly
/// never reached the server (`TransportError.unreachable`) takes the mark away again.
///
/// The retry policy, per conversation:
/// - accepted (201, or 200 for a retry the server recognised) → saved as sent, with its
///   sequence (through `CatchUp`, like any message from the server);
/// - timeout, offline, 5xx, 429, or an answer that could not be saved → stays sending; that
///   conversation's queue pauses (`RetryPause`: backoff with jitter, never shorter than
///   `Retry-After`) and then posts the same row again, same ID; when the network comes back,
///   every pause the network caused ends at once;
/// - any other 4xx → only that message turns failed; its queue moves on to the next (a
///   refused reaction has no bubble: it goes, and the message shows the server's state);
/// - a tapped retry puts a failed message at the back of its conversation's queue, same ID
///   (`MessagesRepository.retry`).
/// A message with media runs its upload steps first (`MediaUpload`: create, parts, complete,
/// each step saved), inside its post, so its conversation's later messages wait behind it as
/// they wait behind any message; an upload's failures are classified like a post's.
/// The queues run while the engine is started.
actor Outbox {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// One conversation's queue: its loop, its pause.
  private final class Lane {
    var loop: Task<Void, Never>?
    /// Someone asked for a flush while the loop was posting: it looks again before it ends.
    var wanted = false
    let pause: RetryPause
    var pausedByNetwork = false

    init(context: EngineContext) {
      pause = RetryPause(context: context)
    }
  }

  private let catchUp: CatchUp
  private var isRunning = false
  private var lanes: [ConversationID: Lane] = [:]
  /// One post at a time per conversation, whoever posts (its loop, or a one-shot `drain`).
  private let posting = KeyedLock<ConversationID>()

  init(context: EngineContext, catchUp: CatchUp) {
    self.context = context
    self.catchUp = catchUp
  }

  private var store: MessageStore { context.store }

  // MARK: - Lifecycle

  /// The app came to the foreground: post what waits.
  func start() async {
    isRunning = true
    await flush()
  }

  /// The app is going away: no new post starts. Posts in flight finish and their answers are
  /// saved; what is left stays queued.
  func stop() {
    isRunning = false
    for conversation in lanes.keys.sorted() { lanes[conversation]?.pause.end() }
  }

  /// Waits for every loop to end (after `stop()`).
  func drained() async {
    for conversation in lanes.keys.sorted() { await lanes[conversation]?.loop?.value }
  }

  /// Starts the loop of every conversation with rows to send.
  func flush() async {
    for conversation in await conversationsWaiting() { flush(conversation) }
  }

  /// A message was saved to be sent: the metrics hear the outbox's new size (soon, not before
  /// the post starts), and its conversation's loop runs.
  func enqueued(in conversation: ConversationID) {
    scheduleSizeReport()
    flush(conversation)
  }

  /// Starts `conversation`'s loop unless it is running; a running loop looks again before it
  /// ends.
  func flush(_ conversation: ConversationID) {
    let lane = lane(conversation)
    lane.wanted = true
    guard isRunning, lane.loop == nil else { return }
    lane.loop = context.spawn { await self.run(conversation) }
  }

  /// The network is back (or a retry was tapped): the pauses the network caused end now.
  func wake() async {
    for conversation in lanes.keys.sorted() {
      guard let lane = lanes[conversation], lane.pausedByNetwork else { continue }
      lane.pause.reset()
      lane.pause.end()
    }
    await flush()
  }

  private func lane(_ conversation: ConversationID) -> Lane {
    if let lane = lanes[conversation] { return lane }
    let lane = Lane(context: context)
    lanes[conversation] = lane
    return lane
  }

  private func run(_ conversation: ConversationID) async {
    let lane = lane(conversation)
    defer { lane.loop = nil }
    while isRunning {
      lane.wanted = false
      switch await postNext(in: conversation) {
      case nil:
        if lane.wanted { continue }
        return
      case .accepted?, .rejected?:
        lane.pause.reset()
      case .signedOut?:
        stop()
      case .temporary(let error, let id)?:
        await wait(lane, after: error, posting: id)
      }
    }
  }

  /// Waits out a conversation's backoff after a temporary failure of `id`'s post.
  private func wait(_ lane: Lane, after error: RequestFailure, posting id: MessageID) async {
    // `stop()` may have run while the post was in flight: a pause must not begin after it.
    guard isRunning else {
      await recordFailedAttempt(id, error, nextAttempt: nil)
      return
    }
    let delay = lane.pause.delay(retryAfter: error.retryAfter)
    await recordFailedAttempt(
      id, error, nextAttempt: context.clock.now().date.addingTimeInterval(delay.secondsValue))
    context.log.write(
      LogRecord(
        .info, "send.will_retry",
        [("reason", error.label), ("attempt", "\(lane.pause.failures)"), ("delay", "\(delay)")]))
    lane.pausedByNetwork = error.isNetworkFailure
    await lane.pause.sleep(delay)
    lane.pausedByNetwork = false
  }

  /// Posts every queued message once, in order per conversation, without waiting out a
  /// backoff: a conversation stops at its first temporary failure, the others go on. Returns
  /// the number of rows left (the command-line `sync`).
  /// A pass that posted something goes again: a delete that waited for a forward queued in a
  /// later conversation can go once the forward went.
  func drain() async -> Int {
    var posted = true
    passes: while posted {
      posted = false
      conversations: for conversation in await conversationsWaiting() {
        while true {
          switch await postNext(in: conversation) {
          case .accepted?, .rejected?:
            posted = true
            continue
          case .signedOut?: break passes
          case .temporary(let error, let id)?:
            await recordFailedAttempt(id, error, nextAttempt: nil)
            continue conversations
          case nil: continue conversations
          }
        }
      }
    }
    return await size() ?? 0
  }

  /// The conversations with rows waiting; none (logged) when the store cannot be read: the
  /// next flush looks again.
  private func conversationsWaiting() async -> [ConversationID] {
    do {
      return try await store.conversationsWithUnsent()
    } catch {
      context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
      return []
    }
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

  /// A size report that will run: one at a time, however many sends and posts ask for one
  /// meanwhile (a burst of sends must not queue a count for each behind the store).
  private var sizeReportScheduled = false

  /// Reports the size soon, once for every request made before it runs.
  private func scheduleSizeReport() {
    guard !sizeReportScheduled else { return }
    sizeReportScheduled = true
    context.spawn {
      await self.reportScheduledSize()
    }
  }

  private func reportScheduledSize() async {
    sizeReportScheduled = false
    await reportSize()
  }

  // MARK: - Posting

  /// How one post ended.
  private enum Outcome: Sendable {
    case accepted, rejected, signedOut
    /// The post of that row will be tried again.
    case temporary(RequestFailure, MessageID)
  }

  /// The outbox as the user sees it (`chat outbox`): one more attempt of `id`, why it did not
  /// end (a label, never a server's text), and when the next is due (nil: unknown, e.g. the
  /// next `chat sync`). A store failure is logged: the row is still queued either way.
  private func recordFailedAttempt(_ id: MessageID, _ error: RequestFailure, nextAttempt: Date?)
    async
  {
    do {
      try await store.recordFailedAttempt(
        id, sender: context.me, reason: error.label, nextAttemptAt: nextAttempt)
    } catch {
      context.log.write(LogRecord(.error, "send.attempt_not_recorded", [("error", "\(error)")]))
    }
  }

  /// Posts the conversation's oldest queued message, one post at a time per conversation
  /// whoever posts; nil when nothing is queued (or the store cannot be read, which is logged:
  /// the next flush looks again).
  private func postNext(in conversation: ConversationID) async -> Outcome? {
    await posting.withLock(conversation) { () async -> Outcome? in
      let next: (record: MessageRecord, isFirst: Bool)?
      do {
        next = try await store.startPosting(
          in: conversation, newestFirst: context.knownBugs.contains(.postNewestFirst),
          staleBefore: context.staleSendAfter.map { context.sendClock.now() - $0.secondsValue })
      } catch {
        context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
        return nil
      }
      guard let next else { return nil }
      return await post(next.record, isFirst: next.isFirst)
    }
  }

  /// Posts one row (a message, or my edit or delete of one) with its client message ID and
  /// saves the answer.
  /// `isFirst`: no earlier post of this row started; if this one never reached the server
  /// either, the row goes back to never posted (an edit may change it in place again).
  private func post(_ message: MessageRecord, isFirst: Bool) async -> Outcome {
    await context.metrics.recordSendAttempt()
    defer { scheduleSizeReport() }
    let postedID =
      context.knownBugs.contains(.retryWithNewID) ? context.ids.next() : message.clientID
    do {
      // A message with media is posted once its upload completed (its steps resume); a
      // forward names what it copies instead (API.md Part 3).
      let forward = message.kind == .message ? message.forwardSource : nil
      let media =
        message.media != nil && message.kind == .message && forward == nil
        ? try await MediaUpload(context: context).run(for: message) : nil
      var body = PostItem(
        clientMessageId: postedID.rawValue, text: message.kind == .delete ? nil : message.text,
        kind: message.kind == .message ? nil : ItemKind(rawValue: message.kind.rawValue),
        target: message.target?.rawValue, media: media,
        emoji: message.kind == .reaction ? message.emoji : nil,
        remove: [.reaction, .pin].contains(message.kind) ? message.reactionRemove : nil,
        replyTo: message.kind == .message ? message.replyTo?.rawValue : nil, forwardOf: forward)
      if forward != nil { body.text = nil }
      let item = try await context.api.postMessage(body, in: message.conversationID)
      guard var record = MessageRecord(item), record.clientID == postedID else {
        context.log.write(LogRecord(.error, "send.unreadable_reply"))
        return .temporary(.malformedReply("post"), message.clientID)
      }
      record.clientID = message.clientID
      await context.metrics.recordAccepted()
      // Accepted but not saved (a full disk, or another row holds its sequence): the row is
      // still sending; retrying later with the same ID gets the same message back.
      guard let saved = await catchUp.save([record], in: message.conversationID),
        saved.clashes == 0
      else {
        return .temporary(
          .malformedReply("the accepted message could not be saved"), message.clientID)
      }
      context.log.write(
        LogRecord(.info, "send.accepted", [("sequence", "\(record.sequence ?? 0)")]))
      wakeSourceQueue(of: forward)
      return .accepted
    } catch .signedOut {
      return .signedOut
    } catch let error
      where error.isTemporary || context.knownBugs.contains(.stopOutboxAtFirst4xx)
    {
      await context.metrics.recordTemporaryFailure()
      if isFirst, case .unreachable = error {
        do {
          try await store.forgetPostStart(message.clientID, sender: context.me)
        } catch {
          context.log.write(LogRecord(.error, "send.mark_failed", [("error", "\(error)")]))
        }
      }
      return .temporary(error, message.clientID)
    } catch {
      await context.metrics.recordRejected()
      context.log.write(LogRecord(.warning, "send.rejected", [("reason", error.label)]))
      let forwardGone: Bool
      if case .rejected(422, _, _) = error, message.forwardSource != nil {
        forwardGone = true
      } else {
        forwardGone = false
      }
      defer { wakeSourceQueue(of: message.kind == .message ? message.forwardSource : nil) }
      if [.reaction, .pin].contains(message.kind) || forwardGone {
        await dropRefused(message)
        return .rejected
      }
      do {
        if let conversation = try await store.markFailed(
          message.clientID, sender: context.me, reason: reason(error))
        {
          await catchUp.start(conversation)
        }
      } catch {
        context.log.write(LogRecord(.error, "send.mark_failed", [("error", "\(error)")]))
      }
      await context.metrics.recordNeverSent(message.clientID)
      return .rejected
    }
  }

  /// A refused reaction or pin of mine goes without a trace (`MessagesTable.dropRefusedMark`).
  /// A forward was answered: my delete of its source, which waited for it
  /// (`OutboxRows.startPosting`), may go now.
  private func wakeSourceQueue(of forward: ForwardOf?) {
    guard let forward, let source = ConversationID(rawValue: forward.conversationId) else {
      return
    }
    flush(source)
  }

  private func dropRefused(_ mark: MessageRecord) async {
    do {
      _ = try await store.dropRefusedMark(mark.clientID, sender: context.me)
    } catch {
      context.log.write(LogRecord(.error, "send.mark_failed", [("error", "\(error)")]))
    }
  }

  private func reason(_ error: RequestFailure) -> String {
    if case .rejected(_, _, let message) = error { return message }
    return error.label
  }
}
