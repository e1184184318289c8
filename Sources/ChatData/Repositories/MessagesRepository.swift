import ChatDomain
import Foundation
import SQLite

/// Owns messages (seed 000 part 5): `GET` and `POST` messages and the socket's message events,
/// all saved to the store. One shared instance per engine, so a send outlives the screen that
/// started it.
///
/// ## Receiving
/// Saves by ID, then moves the conversation's sync position over what it now holds. A message
/// above the position plus one is a gap: it is saved (it shows in place) and `?after=` the
/// position fills the gap. A conversation never fetched gets its newest page first; older
/// history comes page by page with `?before=`.
///
/// ## Sending: the outbox
/// The outbox is the unsent rows, posted oldest first, one at a time, each with the client
/// message ID it was saved with. The retry policy:
/// - accepted (201, or 200 for a retry the server recognised) → sent, with its sequence;
/// - timeout, offline, 5xx, 429 → stays sending; the queue pauses with exponential backoff and
///   jitter (never shorter than `Retry-After`) and then posts the same row again, same ID; when
///   the network comes back, a network-caused pause ends at once;
/// - any other 4xx → only that message turns failed; the queue moves on to the next;
/// - a tapped retry puts a failed message at the back of the queue, same ID.
/// The queue runs while the engine is started; rows left sending by a killed app are simply
/// still in the queue at the next start.
actor MessagesRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// Longest text the server accepts, in Unicode scalars (API.md).
  static let maximumScalars = 4096
  /// Page size for the newest page and for older history (seed 000).
  static let pageSize = 50
  /// Page size for catching up (the server's maximum).
  static let catchUpPageSize = 200

  private var isRunning = false
  private var watched: [ConversationID: Int] = [:]

  private var outboxTask: Task<Void, Never>?
  private var outboxWanted = false
  private var outboxAttempts = 0
  private var pause: Task<Void, Never>?
  private var pausedByNetwork = false
  private var savedAt: [MessageID: Duration] = [:]

  private var catchingUp: Set<ConversationID> = []
  private var catchUpAgain: Set<ConversationID> = []
  private var catchUpAttempts: [ConversationID: Int] = [:]

  /// Told the position up to which a conversation is held, after messages were saved, so the
  /// receipts repository can say "delivered".
  private let onSynced: @Sendable (ConversationID, Int) async -> Void
  /// Told about a message event for a conversation this device does not know yet; answers
  /// whether the device learned its conversations (false: the server could not be reached).
  private let onUnknownConversation: @Sendable () async -> Bool
  private var learningConversations = false

  init(
    context: EngineContext,
    onSynced: @escaping @Sendable (ConversationID, Int) async -> Void,
    onUnknownConversation: @escaping @Sendable () async -> Bool
  ) {
    self.context = context
    self.onSynced = onSynced
    self.onUnknownConversation = onUnknownConversation
  }

  private var store: MessageStore { context.store }

  // MARK: - Lifecycle

  /// The app came to the foreground: the outbox may post.
  func start() {
    isRunning = true
    flushOutbox()
  }

  /// The app is going away: no new post starts. A post in flight finishes and its answer is
  /// saved; what is left stays queued.
  func stop() {
    isRunning = false
    pause?.cancel()
  }

  /// Waits for the outbox loop to end (after `stop()`).
  func outboxDrained() async {
    await outboxTask?.value
  }

  // MARK: - Sending

  /// Saves the message as sending (on screen at once), then lets the outbox post it.
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID {
    let scalars = text.unicodeScalars.count
    guard !text.allSatisfy({ $0.isWhitespace }) else {
      throw .invalidInput("the message is empty")
    }
    guard scalars <= Self.maximumScalars else {
      throw .invalidInput(
        "the message is too long (\(scalars) characters, at most \(Self.maximumScalars))")
    }
    do {
      guard try await store.conversation(conversation) != nil else {
        throw ChatError.notFound("conversation \(conversation)")
      }
      let id = context.ids.next()
      try await store.insertPending(
        MessageRecord(
          conversationID: conversation, clientID: id, senderID: context.me, serverID: nil,
          text: text, sequence: nil, sentAt: context.clock.now(), state: .sending, failure: nil))
      savedAt[id] = context.clock.uptime()
      context.log.write(LogRecord(.info, "send.saved", [("conversation", "\(conversation)")]))
      await reportOutboxSize()
      flushOutbox()
      return id
    } catch let error as ChatError {
      throw error
    } catch let error as StoreError {
      throw error.chatError
    } catch {
      throw .storage("\(error)")
    }
  }

  /// A tapped retry: a failed message goes to the back of the queue with the same ID. A message
  /// still sending is simply given a chance now.
  func retry(_ id: MessageID) async {
    do {
      if try await store.requeue(id, sender: context.me) {
        savedAt[id] = context.clock.uptime()
        context.log.write(LogRecord(.info, "send.retry_tapped"))
      }
    } catch {
      context.log.write(LogRecord(.error, "send.retry_failed", [("error", "\(error)")]))
    }
    wakeFromNetworkPause()
    flushOutbox()
  }

  /// The network is back: a pause caused by the network ends now.
  func networkReturned() {
    wakeFromNetworkPause()
    flushOutbox()
  }

  private func wakeFromNetworkPause() {
    if pausedByNetwork {
      outboxAttempts = 0
      pause?.cancel()
    }
  }

  /// Starts the outbox loop unless it is running; a running loop looks again before it ends.
  func flushOutbox() {
    outboxWanted = true
    guard isRunning, outboxTask == nil else { return }
    outboxTask = context.spawn { await self.runOutbox() }
  }

  /// How one post ended.
  private enum PostOutcome {
    case accepted, rejected, signedOut
    case temporary(APIError)
  }

  private func runOutbox() async {
    defer { outboxTask = nil }
    while isRunning {
      outboxWanted = false
      guard let message = await nextToSend() else {
        if outboxWanted { continue }
        return
      }
      switch await post(message) {
      case .accepted, .rejected:
        outboxAttempts = 0
      case .signedOut:
        stop()
      case .temporary(let error):
        await pauseAfter(error)
      }
    }
  }

  /// Posts every queued row once, in order, without waiting out a backoff: returns at the first
  /// temporary failure with the number of rows left (the command-line `sync`).
  func drainOutbox() async -> Int {
    posting: while let message = await nextToSend() {
      switch await post(message) {
      case .accepted, .rejected: continue posting
      case .signedOut, .temporary: break posting
      }
    }
    return (try? await store.outboxCount()) ?? 0
  }

  private func nextToSend() async -> MessageRecord? {
    do {
      return try await store.nextUnsent()
    } catch {
      context.log.write(LogRecord(.error, "outbox.read_failed", [("error", "\(error)")]))
      return nil
    }
  }

  /// Waits out the backoff after a temporary failure; the network coming back ends a pause the
  /// network caused.
  private func pauseAfter(_ error: APIError) async {
    outboxAttempts += 1
    let delay = context.backoff.delay(
      attempt: outboxAttempts, retryAfter: error.retryAfter, random: context.random)
    context.log.write(
      LogRecord(
        .info, "send.will_retry",
        [("reason", error.label), ("attempt", "\(outboxAttempts)"), ("delay", "\(delay)")]))
    pausedByNetwork = error.isNetworkFailure
    let clock = context.clock
    let pause = context.spawn { try? await clock.sleep(for: delay) }
    self.pause = pause
    await pause.value
    self.pause = nil
    pausedByNetwork = false
  }

  /// Posts one row with its client message ID and saves the answer.
  private func post(_ message: MessageRecord) async -> PostOutcome {
    await context.metrics.recordSendAttempt()
    defer { context.spawn { await self.reportOutboxSize() } }
    let postedID =
      context.knownBugs.contains(.retryWithNewID) ? context.ids.next() : message.clientID
    let body = PostMessageDTO(clientMessageId: postedID.rawValue, text: message.text)
    do {
      let dto = try await context.api.postMessage(body, in: message.conversationID)
      guard var record = MessageRecord(dto), record.clientID == postedID else {
        context.log.write(LogRecord(.error, "send.unreadable_reply"))
        return .temporary(.malformedReply("post"))
      }
      record.clientID = message.clientID
      await context.metrics.recordAccepted()
      await saveReceived([record], in: message.conversationID)
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
      savedAt[message.clientID] = nil
      return .rejected
    }
  }

  private func reason(_ error: APIError) -> String {
    if case .rejected(_, _, let message) = error { return message }
    return error.label
  }

  private func reportOutboxSize() async {
    if let size = try? await store.outboxCount() {
      await context.metrics.recordOutboxSize(size)
    }
  }

  // MARK: - Receiving

  /// A message event from the socket.
  func receive(_ dto: MessageDTO) async {
    guard let record = MessageRecord(dto) else {
      context.log.write(LogRecord(.warning, "live.unreadable_message"))
      return
    }
    let known = (try? await store.conversation(record.conversationID)) != nil
    if !known, await !onUnknownConversation() { learnConversationsLater() }
    await saveReceived([record], in: record.conversationID)
  }

  /// Learning the conversations (`/v1/sync`, after a connect or for an unknown conversation's
  /// message) failed for a passing reason: it is tried again with backoff while the app is in
  /// the foreground. Nothing else would bring a missed conversation before the next reconnect,
  /// since the socket stays up.
  func learnConversationsLater() {
    guard !learningConversations else { return }
    learningConversations = true
    context.spawn { await self.learnConversations() }
  }

  private func learnConversations() async {
    var attempt = 0
    while isRunning {
      attempt += 1
      let delay = context.backoff.delay(attempt: attempt, random: context.random)
      try? await context.clock.sleep(for: delay)
      guard isRunning else { break }
      if await onUnknownConversation() { break }
    }
    learningConversations = false
  }

  /// Saves messages, then fills a gap if the save revealed one, and reports the position.
  private func saveReceived(_ records: [MessageRecord], in conversation: ConversationID) async {
    do {
      let outcome = try await store.saveServerMessages(records, in: conversation, me: context.me)
      for record in records where record.senderID == context.me {
        if let started = savedAt.removeValue(forKey: record.clientID) {
          await context.metrics.recordSendToSent(context.clock.uptime() - started)
        }
      }
      if let synced = outcome.syncedUpTo {
        if outcome.hasGap, !catchingUp.contains(conversation) {
          await context.metrics.recordGap()
          context.log.write(
            LogRecord(
              .info, "sync.gap", [("conversation", "\(conversation)"), ("after", "\(synced)")]))
          startCatchUp(conversation)
        }
        await onSynced(conversation, synced)
      }
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
  }

  // MARK: - Catching up

  /// A screen opened the conversation: catch it up, and keep catching it up after reconnects
  /// until `unwatch`.
  func watch(_ conversation: ConversationID) {
    watched[conversation, default: 0] += 1
    startCatchUp(conversation)
  }

  func unwatch(_ conversation: ConversationID) {
    let count = (watched[conversation] ?? 1) - 1
    watched[conversation] = count > 0 ? count : nil
  }

  /// After a (re)connect: catches up every conversation the server is ahead in, and every
  /// conversation on screen.
  func catchUpAll() async {
    guard let conversations = try? await store.conversations() else { return }
    for conversation in conversations {
      let behind = conversation.syncedUpTo.map { conversation.lastSequence > $0 } ?? false
      if behind || watched[conversation.id] != nil {
        startCatchUp(conversation.id)
      }
    }
  }

  /// Catches up every conversation fully, newest page first for those never fetched, and
  /// returns when done (the command-line `sync`). Throws the first error.
  func catchUpEverything() async throws(ChatError) {
    let conversations: [ConversationRecord]
    do {
      conversations = try await store.conversations()
    } catch {
      throw error.chatError
    }
    for conversation in conversations {
      do {
        try await catchUp(conversation.id)
      } catch {
        throw error.chatError
      }
    }
  }

  /// Starts a catch-up unless one is running; a running one goes round once more.
  private func startCatchUp(_ conversation: ConversationID) {
    guard !catchingUp.contains(conversation) else {
      catchUpAgain.insert(conversation)
      return
    }
    catchingUp.insert(conversation)
    context.spawn { await self.runCatchUp(conversation) }
  }

  private func runCatchUp(_ conversation: ConversationID) async {
    var failure: APIError?
    repeat {
      catchUpAgain.remove(conversation)
      do {
        try await catchUp(conversation)
        failure = nil
      } catch {
        failure = error
      }
    } while catchUpAgain.contains(conversation) && failure == nil
    catchingUp.remove(conversation)
    guard let failure else {
      catchUpAttempts[conversation] = nil
      return
    }
    guard failure.isTemporary, isRunning else { return }
    // A catch-up that failed for a passing reason is tried again, with backoff, while the app
    // is in the foreground: a hole must not wait for the next reconnect.
    let attempt = (catchUpAttempts[conversation] ?? 0) + 1
    catchUpAttempts[conversation] = attempt
    let delay = context.backoff.delay(
      attempt: attempt, retryAfter: failure.retryAfter, random: context.random)
    try? await context.clock.sleep(for: delay)
    if isRunning { startCatchUp(conversation) }
  }

  /// Fetches what this device lacks above its sync position (`?after=`, 200 at a time), after
  /// the newest page if the conversation was never fetched.
  private func catchUp(_ conversation: ConversationID) async throws(APIError) {
    guard let record = try? await store.conversation(conversation) else { return }
    var fetched = 0
    if record.syncedUpTo == nil {
      let page = try await context.api.messages(in: conversation, limit: Self.pageSize)
      let records = readable(page.items)
      await saveReceived(records, in: conversation)
      fetched += records.count
      _ = try? await store.setSyncPosition(
        conversation, syncedUpTo: records.last?.sequence ?? 0,
        historyFloor: page.hasMore ? (records.first?.sequence ?? 1) : 1)
    }
    while true {
      guard let synced = try? await store.conversation(conversation)?.syncedUpTo else { break }
      let page = try await context.api.messages(
        in: conversation, after: synced, limit: Self.catchUpPageSize)
      let records = readable(page.items)
      fetched += records.count
      await saveReceived(records, in: conversation)
      let now = try? await store.conversation(conversation)?.syncedUpTo
      // No progress means the server broke its no-holes promise: stop rather than spin.
      guard page.hasMore, let now, now > synced else { break }
    }
    await context.metrics.recordCatchUp(messages: fetched)
    if fetched > 0 {
      context.log.write(
        LogRecord(
          .info, "sync.caught_up",
          [("conversation", "\(conversation)"), ("messages", "\(fetched)")]))
    }
  }

  private func readable(_ items: [MessageDTO]) -> [MessageRecord] {
    let records = items.compactMap(MessageRecord.init)
    if records.count != items.count {
      context.log.write(
        LogRecord(
          .warning, "sync.unreadable_messages", [("count", "\(items.count - records.count)")]))
    }
    return records
  }

  // MARK: - History

  /// Fetches 50 messages older than the oldest held (`?before=`). Returns false at the
  /// beginning of the conversation.
  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    guard let record = try? await store.conversation(conversation) else {
      throw .notFound("conversation \(conversation)")
    }
    if record.syncedUpTo == nil {
      do {
        try await catchUp(conversation)
      } catch {
        throw error.chatError
      }
      let floor = (try? await store.conversation(conversation)?.historyFloor) ?? 1
      return floor > 1
    }
    let floor = record.historyFloor ?? 1
    guard floor > 1 else { return false }
    let page: MessagePageDTO
    do {
      page = try await context.api.messages(
        in: conversation, before: floor, limit: Self.pageSize)
    } catch {
      throw error.chatError
    }
    let records = readable(page.items)
    await saveReceived(records, in: conversation)
    let newFloor = page.hasMore ? (records.first?.sequence ?? floor) : 1
    _ = try? await store.setSyncPosition(conversation, syncedUpTo: nil, historyFloor: newFloor)
    return page.hasMore
  }
}
