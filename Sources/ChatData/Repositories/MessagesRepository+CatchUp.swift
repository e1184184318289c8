import ChatAPI
import ChatDomain
import Foundation
import Support

extension MessagesRepository {
  // MARK: - Watching

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
  /// conversation on screen. Returns once they have started.
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
  func catchUpEverything(progress: (@Sendable (ChatEngine.SyncProgress) -> Void)? = nil)
    async throws(ChatError)
  {
    let conversations: [ConversationRecord]
    do {
      conversations = try await store.conversations()
    } catch {
      throw error.chatError
    }
    var report = ChatEngine.SyncProgress(
      conversationsDone: 0, conversations: conversations.count, messagesFetched: 0)
    progress?(report)
    for conversation in conversations {
      let before = report
      do {
        report.messagesFetched += try await catchUp(conversation.id) { fetched in
          var partial = before
          partial.messagesFetched += fetched
          progress?(partial)
        }
      } catch {
        throw error.chatError
      }
      report.conversationsDone += 1
      progress?(report)
    }
  }

  // MARK: - The background catch-up

  /// Starts a catch-up unless one is running; a running one goes round once more.
  func startCatchUp(_ conversation: ConversationID) {
    guard !catchingUp.contains(conversation) else {
      catchUpAgain.insert(conversation)
      return
    }
    catchingUp.insert(conversation)
    context.spawn { await self.runCatchUp(conversation) }
  }

  private func runCatchUp(_ conversation: ConversationID) async {
    var failure: RequestFailure?
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
    let delay = context.retryPolicy.delay(
      afterFailure: attempt, retryAfter: failure.retryAfter, random: context.random)
    let clock = context.clock
    retries[conversation]?.cancel()
    retries[conversation] = context.spawn {
      guard (try? await clock.sleep(for: delay)) != nil else { return }
      await self.retryCatchUp(conversation)
    }
  }

  private func retryCatchUp(_ conversation: ConversationID) {
    retries[conversation] = nil
    if isRunning { startCatchUp(conversation) }
  }

  // MARK: - Learning the conversations

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
      let delay = context.retryPolicy.delay(afterFailure: attempt, random: context.random)
      try? await context.clock.sleep(for: delay)
      guard isRunning else { break }
      if await onUnknownConversation() { break }
    }
    learningConversations = false
  }

  // MARK: - Fetching

  /// Fetches what this device lacks above its sync position (`?after=`, 200 at a time), after
  /// the newest page if the conversation was never fetched. One fetch per conversation at a
  /// time, whoever asks. Returns the number of messages fetched.
  @discardableResult
  func catchUp(_ conversation: ConversationID, progress: ((Int) -> Void)? = nil)
    async throws(RequestFailure) -> Int
  {
    try await fetching.withLock(conversation) { () async throws(RequestFailure) -> Int in
      try await fetchMissing(conversation, progress: progress)
    }
  }

  private func fetchMissing(_ conversation: ConversationID, progress: ((Int) -> Void)?)
    async throws(RequestFailure) -> Int
  {
    guard let record = try? await store.conversation(conversation) else { return 0 }
    var fetched = 0
    if record.syncedUpTo == nil {
      let page = try await context.api.messages(in: conversation, limit: Self.pageSize)
      fetched += await save(page.items, in: conversation)
      let sequences = page.items.map(\.sequence)
      _ = try? await store.setSyncPosition(
        conversation, syncedUpTo: sequences.max() ?? 0,
        historyFloor: page.hasMore ? (sequences.min() ?? 1) : 1)
    }
    while true {
      guard let synced = try? await store.conversation(conversation)?.syncedUpTo else { break }
      let page = try await context.api.messages(
        in: conversation, after: synced, limit: Self.catchUpPageSize)
      fetched += await save(page.items, in: conversation)
      // The server promises no holes: a contiguous page moves the position to its end even
      // over a message this client could not read (and dropped), so one bad message cannot
      // hold every later one back.
      let sequences = page.items.map(\.sequence)
      if let last = sequences.last, sequences == Array((synced + 1)...last) {
        _ = try? await store.setSyncPosition(conversation, syncedUpTo: last, historyFloor: nil)
      }
      progress?(fetched)
      let now = (try? await store.conversation(conversation)?.syncedUpTo) ?? synced
      // No progress means the server broke its no-holes promise: stop rather than spin.
      guard page.hasMore, now > synced else { break }
    }
    await context.metrics.recordCatchUp(messages: fetched)
    if fetched > 0 {
      context.log.write(
        LogRecord(
          .info, "sync.caught_up",
          [("conversation", "\(conversation)"), ("messages", "\(fetched)")]))
    }
    return fetched
  }

  /// Saves a page's readable messages; returns how many.
  private func save(_ items: [Item], in conversation: ConversationID) async -> Int {
    let records = items.compactMap(MessageRecord.init)
    if records.count != items.count {
      context.log.write(
        LogRecord(
          .warning, "sync.unreadable_messages", [("count", "\(items.count - records.count)")]))
    }
    await saveReceived(records, in: conversation)
    return records.count
  }

  // MARK: - History

  /// Fetches 50 messages older than the oldest held (`?before=`). Returns false at the
  /// beginning of the conversation.
  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    guard let record = try? await store.conversation(conversation) else {
      throw .notFound("conversation \(conversation)")
    }
    guard record.syncedUpTo != nil else {
      do {
        try await catchUp(conversation)
      } catch {
        throw error.chatError
      }
      let floor = (try? await store.conversation(conversation)?.historyFloor) ?? 1
      return floor > 1
    }
    do {
      return try await fetching.withLock(conversation) { () async throws(RequestFailure) -> Bool in
        try await fetchOlder(conversation)
      }
    } catch {
      throw error.chatError
    }
  }

  private func fetchOlder(_ conversation: ConversationID) async throws(RequestFailure) -> Bool {
    let floor = (try? await store.conversation(conversation)?.historyFloor) ?? 1
    guard floor > 1 else { return false }
    let page = try await context.api.messages(
      in: conversation, before: floor, limit: Self.pageSize)
    _ = await save(page.items, in: conversation)
    let newFloor = page.hasMore ? (page.items.map(\.sequence).min() ?? floor) : 1
    _ = try? await store.setSyncPosition(conversation, syncedUpTo: nil, historyFloor: newFloor)
    return page.hasMore
  }
}
