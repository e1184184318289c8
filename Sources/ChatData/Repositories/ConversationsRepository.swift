import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// Owns conversations: `GET /v1/sync?cursor=`, `POST /v1/conversations` and the socket's
/// conversation events; and, as the `ConversationListRepository`, reads the list from the same
/// database (seed 000 §11: a second reader; no shared store, no change bus).
actor ConversationsRepository: ConversationListRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  private var syncing: Task<Result<[ConversationID], RequestFailure>, Never>?
  private var isRunning = false
  /// A retry of learning the conversations is waiting (`learnLater`), and which one: a retry
  /// cancelled by `stop()` may still be ending when the next start begins another.
  private var learning: (id: Int, task: Task<Void, Never>)?
  private var learningRuns = 0

  init(context: EngineContext) {
    self.context = context
  }

  /// The app is in the foreground: a failed learning may be retried.
  func start() {
    isRunning = true
  }

  /// No retry waits any more.
  func stop() {
    isRunning = false
    learning?.task.cancel()
    learning = nil
  }

  private var store: MessageStore { context.store }

  /// Learns which conversations changed since the last cursor (all of them the first time) and
  /// saves them. Concurrent calls share one request. Returns the conversations that changed.
  @discardableResult
  func sync() async throws(RequestFailure) -> [ConversationID] {
    if let syncing { return try await syncing.value.get() }
    let task = context.executor.spawn { await self.performSync() }
    syncing = task
    let result = await task.value
    syncing = nil
    return try result.get()
  }

  /// `sync()` as a long poll (`?wait=`): held by the server until something changes for this
  /// user or `wait` passes, for a network that blocks the socket. Not shared with `sync()`:
  /// a caller that wants the list now must not wait out a poll.
  func longPoll(wait: Duration) async throws(RequestFailure) -> [ConversationID] {
    try await performSync(wait: wait).get()
  }

  private func performSync(wait: Duration? = nil) async -> Result<[ConversationID], RequestFailure>
  {
    let cursor: String?
    do {
      cursor = try await store.syncCursor()
    } catch {
      // Without the cursor everything is asked for again: safe, since saving is by ID.
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      cursor = nil
    }
    let dto: SyncResponse
    do {
      dto = try await context.api.sync(cursor: cursor, wait: wait)
    } catch {
      return .failure(error)
    }
    // The cursor moves only with a complete save: a change not saved must come again.
    let blocked = context.knownBugs.contains(.blockedIgnoresSync) ? nil : dto.blocked
    let complete = await save(dto.conversations, cursor: dto.cursor, blocked: blocked)
    if !complete {
      context.log.write(LogRecord(.warning, "sync.cursor_kept"))
    }
    return .success(dto.conversations.compactMap { ConversationID(rawValue: $0.id) })
  }

  /// `sync()`, and when it fails, `learnLater()`: for the reconnect sequence and an unknown
  /// conversation's message. Returns the conversations that changed, nil when it failed.
  @discardableResult
  func learn() async -> [ConversationID]? {
    do {
      return try await sync()
    } catch {
      context.log.write(LogRecord(.info, "sync.failed", [("reason", error.label)]))
      learnLater()
      return nil
    }
  }

  /// Learning the conversations failed for a passing reason: it is tried again with backoff
  /// while the app is in the foreground. Nothing else would bring a missed conversation before
  /// the next reconnect, since the socket stays up.
  func learnLater() {
    guard learning == nil, isRunning else { return }
    guard !context.knownBugs.contains(.noRetryOfFailedSync) else { return }
    learningRuns += 1
    let id = learningRuns
    learning = (id, context.spawn { await self.retryLearning(id) })
  }

  private func retryLearning(_ id: Int) async {
    let pause = RetryPause(context: context)
    while isRunning, !Task.isCancelled {
      await pause.wait()
      guard isRunning, !Task.isCancelled else { break }
      do {
        try await sync()
        break
      } catch {
        continue
      }
    }
    if learning?.id == id { learning = nil }
  }

  /// A conversation event from the socket: created, or its members changed.
  func receive(_ dto: ConversationItem) async {
    await save([dto], cursor: nil)
  }

  // MARK: - Blocking (API.md Part 3)

  /// My block list changed (the socket's `blocked` event, or my own block): the whole list.
  func receiveBlocked(_ served: [String]) async {
    let users = served.compactMap(UserID.init(rawValue:))
    guard users.count == served.count else {
      // An unreadable list is left for the next `/v1/sync`, which answers it whole.
      context.log.write(LogRecord(.warning, "blocked.unreadable"))
      return
    }
    do {
      try await store.saveBlocked(users)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
  }

  /// Blocks (or unblocks) `user` for me on the server, then saves the list it answers. Not
  /// queued: it needs the network now, and says so when there is none.
  func setBlocked(_ user: UserID, block: Bool) async throws(ChatError) {
    guard user != context.me else { throw .invalidInput("you cannot block yourself") }
    do {
      let list = try await context.api.setBlocked(user, block: block)
      await receiveBlocked(list)
    } catch {
      throw error.chatError
    }
  }

  /// Saves conversations (and the cursor, in the same transaction, when every one was
  /// readable). Returns false when something was left out.
  @discardableResult
  private func save(_ dtos: [ConversationItem], cursor: String?, blocked served: [String]? = nil)
    async -> Bool
  {
    let conversations = dtos.compactMap(ServerConversation.init)
    let lastMessages = dtos.compactMap { $0.lastMessage.flatMap(MessageRecord.init) }
    // An unreadable block list (an ID that is not one) is left out, and the cursor with it.
    let blocked = served.map { $0.compactMap(UserID.init(rawValue:)) }
    let complete =
      conversations.count == dtos.count && blocked?.count == served?.count
    if !complete {
      context.log.write(
        LogRecord(
          .warning, "sync.unreadable_conversations",
          [("count", "\(dtos.count - conversations.count)")]))
    }
    do {
      try await store.saveConversations(
        conversations, lastMessages: lastMessages, cursor: complete ? cursor : nil,
        blocked: blocked?.count == served?.count ? blocked : nil, me: context.me)
      return complete
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
      return false
    }
  }

  /// Creates a conversation on the server and saves it.
  func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID
  {
    let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw .invalidInput("the title is empty") }
    let members = Array(Set(memberIDs + [context.me])).sorted()
    guard members.count <= APILimits.maxMembers else {
      throw .invalidInput(
        "too many members (\(members.count), at most \(APILimits.maxMembers) with you)")
    }
    let dto: ConversationItem
    do {
      dto = try await context.api.createConversation(
        CreateConversation(
          title: trimmed, memberIds: members.filter { $0 != context.me }.map(\.rawValue)))
    } catch {
      throw error.chatError
    }
    guard let conversation = ServerConversation(dto) else {
      throw .unavailable(retryAfterSeconds: nil)
    }
    await save([dto], cursor: nil)
    return conversation.id
  }

  /// Posts a members change and saves its item (the socket brings it too: saving is by ID).
  func changeMembers(in conversation: ConversationID, add: [UserID], remove: [UserID])
    async throws(ChatError)
  {
    guard !add.isEmpty || !remove.isEmpty else {
      throw .invalidInput("name members to add or to remove")
    }
    let body = ChangeMembers(
      clientMessageId: context.ids.next().rawValue,
      add: add.isEmpty ? nil : add.map(\.rawValue),
      remove: remove.isEmpty ? nil : remove.map(\.rawValue))
    try await saveChange(in: conversation) { api throws(RequestFailure) in
      try await api.changeMembers(body, in: conversation)
    }
  }

  /// Tells the server, then saves it here (my other devices hear of it from the server).
  func mute(_ conversation: ConversationID, until: Date?, mentionsPush: Bool)
    async throws(ChatError)
  {
    let value: String? =
      until.map { $0 == .distantFuture ? Mute.forever : Timestamp($0).rfc3339 }
    do {
      try await context.api.mute(
        Mute(until: value, mentions: mentionsPush ? .push : .silent), in: conversation)
    } catch {
      throw error.chatError
    }
    do {
      try await store.setMuted(conversation, until: until, mentionsPush: mentionsPush)
    } catch {
      throw ChatError(error)
    }
  }

  /// Posts a title change and saves its item.
  func rename(_ conversation: ConversationID, to title: String) async throws(ChatError) {
    let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...APILimits.maxTitleCharacters).contains(trimmed.count) else {
      throw .invalidInput("a title holds 1 to \(APILimits.maxTitleCharacters) characters")
    }
    let body = ChangeTitle(clientMessageId: context.ids.next().rawValue, title: trimmed)
    try await saveChange(in: conversation) { api throws(RequestFailure) in
      try await api.changeTitle(body, in: conversation)
    }
  }

  private func saveChange(
    in conversation: ConversationID,
    _ post: (APIClient) async throws(RequestFailure) -> Item
  ) async throws(ChatError) {
    let item: Item
    do {
      item = try await post(context.api)
    } catch .rejected(403, _, _) {
      throw .rejected(code: "forbidden", message: "you may not make this change here")
    } catch {
      throw error.chatError
    }
    guard let record = MessageRecord(item) else { throw .unavailable(retryAfterSeconds: nil) }
    do {
      try await store.saveServerMessages([record], in: conversation, me: context.me)
    } catch {
      throw ChatError(error)
    }
  }

  /// My conversations for the list, newest activity first, on every change.
  nonisolated func conversations() -> AsyncStream<[ConversationSummary]> {
    let context = context
    return context.observe(
      relevant: { _ in true },
      query: {
        guard
          let rows = await context.readOrLog({ try await context.store.listRows(me: context.me) })
        else {
          return nil
        }
        return rows.map { RecordMapping.summary($0, me: context.me) }
      })
  }

  /// One conversation as the list shows it, on every change.
  nonisolated func conversation(_ conversation: ConversationID) -> AsyncStream<
    ConversationSummary?
  > {
    let context = context
    return context.observe(
      relevant: { $0.conversations.contains(conversation) },
      query: {
        guard
          let row = await context.readOrLog({
            try await context.store.listRow(conversation, me: context.me)
          })
        else { return nil }
        return .some(row.map { RecordMapping.summary($0, me: context.me) })
      })
  }

  /// Searches the messages on this device, newest first; incomplete when some conversation's
  /// history here does not reach its first message.
  func search(_ query: String, limit: Int) async throws(ChatError) -> LocalSearch {
    do {
      let hits = try await store.search(query, limit: limit).map {
        RecordMapping.hit($0, me: context.me)
      }
      return LocalSearch(hits: hits, mayBeIncomplete: try await store.holdsPartialHistory())
    } catch {
      throw error.chatError
    }
  }

  /// `GET /v1/search`: the server's matches of everything I can see, newest first, titled
  /// with the conversations this device knows. The query is checked here first, so a query
  /// with nothing to search fails offline with the local search's words.
  func searchServer(_ query: String, limit: Int, before: String?) async throws(ChatError)
    -> ServerSearch
  {
    do {
      _ = try SearchQuery.terms(of: query)
    } catch {
      throw error.chatError
    }
    let response: SearchResponse
    do {
      response = try await context.api.search(query, limit: limit, before: before)
    } catch {
      throw error.chatError
    }
    var titles: [String: String] = [:]
    for result in response.items where titles[result.conversationId] == nil {
      if let id = ConversationID(rawValue: result.conversationId) {
        titles[result.conversationId] =
          await context.readOrLog {
            try await store.conversation(id)?.title
          } ?? nil
      }
    }
    let hits = response.items.compactMap { result in
      RecordMapping.hit(result, title: titles[result.conversationId] ?? "")
    }
    return ServerSearch(hits: hits, nextCursor: response.nextCursor)
  }
}
