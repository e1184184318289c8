import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// What handling a push (a background fetch) did: the answer the host's completion handler
/// wants (`UIBackgroundFetchResult`).
public enum BackgroundFetchResult: Sendable, Equatable {
  /// Messages or a conversation arrived (some, if the budget ran out first).
  case newData
  /// Everything was already here.
  case noData
  /// The server could not be reached, or the budget ran out before anything arrived.
  case failed
}

/// How far a push's bounded sync got, read when its budget ends.
struct PushSyncProgress: Sendable {
  var messages = 0
  var learnedConversation = false
  var failed = false
  var finished = false
}

extension ChatEngine {
  /// Registers this device's push token on the server (`PUT /v1/devices/me/push`); call it at
  /// launch with the token the platform gives, and again when that changes. The token is kept:
  /// if the server cannot be reached now it is sent at the next connect (and this throws the
  /// passing error); an unchanged token is not sent again.
  public func registerPush(_ registration: PushRegistration) async throws(ChatError) {
    try await push.want(registration)
  }

  /// Asks for no more pushes (`DELETE /v1/devices/me/push`), now or at the next connect.
  public func unregisterPush() async throws(ChatError) {
    try await push.want(nil)
  }

  /// Handles a push (seed 003: the socket is only for the foreground; in the background a push
  /// wakes the app and it syncs over HTTP) with a bounded sync, answering within `budget`:
  ///
  /// 1. a conversation this device does not know is learned with `/v1/sync`;
  /// 2. the conversation is caught up (`?after=`, at most `pushCatchUpRounds` rounds of pages),
  ///    each page saved whole;
  /// 3. the outbox is flushed once, and the conversation's delivered number posted.
  ///
  /// When the budget ends first, the answer says what arrived by then; the work in flight goes
  /// on while the process lives, and a page is saved whole or not at all, so nothing is ever
  /// half-written.
  public func handlePush(_ payload: PushPayload, budget: Duration) async -> BackgroundFetchResult {
    let clock = context.clock
    let deadline = clock.uptime() + budget
    let progress = Locked(PushSyncProgress())
    let work = context.executor.spawn { await self.syncForPush(payload, progress: progress) }
    _ = await value(of: work, until: deadline, clock: clock, on: context.executor)
    let result = progress.withLock { $0 }
    context.log.write(
      LogRecord(
        .info, "push.handled",
        [
          ("messages", "\(result.messages)"), ("finished", "\(result.finished)"),
          ("failed", "\(result.failed)"),
        ]))
    if result.messages > 0 || result.learnedConversation { return .newData }
    return result.finished && !result.failed ? .noData : .failed
  }

  /// Rounds of catch-up pages a push brings at most (each up to `CatchUp.pagesInFlight` pages
  /// of 200): the rest comes when the app opens.
  public static let pushCatchUpRounds = 2

  private func syncForPush(_ payload: PushPayload, progress: Locked<PushSyncProgress>) async {
    defer { progress.withLock { $0.finished = true } }
    guard let conversation = ConversationID(rawValue: payload.conversationId) else {
      progress.withLock { $0.failed = true }
      return
    }
    let known = (try? await context.store.conversation(conversation)) != nil
    if !known {
      do {
        try await conversationsSource.sync()
        let learned = (try? await context.store.conversation(conversation)) != nil
        progress.withLock { $0.learnedConversation = learned }
      } catch {
        progress.withLock { $0.failed = true }
        return
      }
    }
    // A sequence beyond the log's end is the server's to correct (the catch-up stops there).
    try? await context.store.raiseLastSequence(conversation, to: payload.sequence)
    do {
      try await catchUp.catchUp(conversation, rounds: Self.pushCatchUpRounds) { fetched in
        progress.withLock { $0.messages = fetched }
      }
    } catch {
      progress.withLock { $0.failed = true }
    }
    _ = await outbox.drain()
    await receiptsSource.postDeliveredNow(in: conversation)
  }

  /// The app left the foreground (seed 003: the socket is only for the foreground). The socket
  /// stays open for `grace` (a quick return needs no reconnect) while the outbox goes on
  /// sending; when both the grace and the outbox are done, or the host's background `window`
  /// ends, the engine stops (`stop()`). Returns the messages still queued: they go at the next
  /// start or push. A return to the foreground meanwhile (`enterForeground()`) keeps it running.
  @discardableResult
  public func enterBackground(grace: Duration = .seconds(5), window: Duration) async -> Int {
    let clock = context.clock
    let started = clock.uptime()
    let deadline = started + window
    let visit = await lifecycle.enterBackground()
    let sending = context.executor.spawn { [outbox] in await outbox.drained() }
    _ = await value(of: sending, until: deadline, clock: clock, on: context.executor)
    let graceEnd = min(started + grace, deadline)
    if clock.uptime() < graceEnd {
      let waiting = context.executor.spawn {
        try? await clock.sleep(for: graceEnd - clock.uptime())
      }
      _ = await value(of: waiting, until: nil, clock: clock, on: context.executor)
    }
    // The check and the stop are one transition: a return to the foreground is either before
    // it (nothing stops) or after it (it starts again, whole).
    await lifecycle.transition { [self] in
      if await lifecycle.isStillBackground(visit) { await stopParts() }
    }
    return await outboxCount()
  }

  /// The app is back in the foreground: `start()`. A socket closed in the background reconnects
  /// and the catch-up runs before its events are trusted, as after any reconnect.
  public func enterForeground() async {
    await lifecycle.enterForeground()
    await start()
  }
}

/// The engine's lifecycle: starts, stops and the close run one at a time in the order asked
/// (each awaits many parts; two interleaved would leave some parts started and others
/// stopped), none after the close; and whether the app is in the foreground, with which visit
/// to the background is the current one (a visit ends in a stop only if no return to the
/// foreground came since).
actor AppLifecycle {
  nonisolated let executor: any SerialTaskExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }
  private var visits = 0
  private var isBackground = false
  private var isClosed = false
  /// The transition asked for last: the next one runs after it.
  private var last: Task<Void, Never>?

  init(executor: any SerialTaskExecutor) {
    self.executor = executor
  }

  /// Runs `body` once every transition asked for before has finished; not at all once the
  /// engine is closed. `closing` marks the close: nothing runs after it. Returns when `body`
  /// has run; with `waitsBehind` false, a transition queued behind another (a start asked
  /// while a stop's close handshake runs) returns at once instead: it runs when its turn
  /// comes, and the caller, an app's lifecycle callback, is not held by the other.
  func transition(
    closing: Bool = false, waitsBehind: Bool = true,
    _ body: @escaping @Sendable () async -> Void
  ) async {
    let previous = last
    let queuedBehind = pending > 0
    pending += 1
    let task = executor.spawn { [self] in
      await previous?.value
      if await begin(closing: closing) { await body() }
      await end()
    }
    last = task
    if waitsBehind || !queuedBehind { await task.value }
  }

  /// Transitions queued or running.
  private var pending = 0

  private func begin(closing: Bool) -> Bool {
    guard !isClosed else { return false }
    if closing { isClosed = true }
    return true
  }

  private func end() {
    pending -= 1
  }

  func enterBackground() -> Int {
    visits += 1
    isBackground = true
    return visits
  }

  func enterForeground() {
    isBackground = false
  }

  func isStillBackground(_ visit: Int) -> Bool {
    isBackground && visits == visit
  }
}
