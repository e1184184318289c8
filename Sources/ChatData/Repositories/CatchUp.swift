import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// Receiving (seed 000 §9): every message the server sends this device (a socket event, a page,
/// the reply to a post) is saved here by ID, the conversation's sync position moves over what
/// is now held, and a gap is filled with `?after=`.
///
/// - A message above the position plus one is a gap: it is saved (it shows in place) and
///   `?after=` the position fills what is missing; a catch-up in flight goes round once more.
/// - A conversation never fetched gets its newest page first; older history comes page by page
///   with `?before=` (`loadOlder`). One fetch per conversation at a time, whoever asks.
/// - A catch-up that failed for a passing reason is tried again (`RetryPause`) while the app is
///   in the foreground: a hole must not wait for the next reconnect.
/// - After a save, `onSynced` hears the position up to which the conversation is held, so the
///   receipts repository can say "delivered".
actor CatchUp {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// Page size for the newest page and for older history (seed 000).
  static let pageSize = 50
  /// Page size for catching up (the server's maximum).
  static let catchUpPageSize = APILimits.pageSizes.upperBound
  /// Pages of a catch-up asked for at once when the device knows how far behind it is: the
  /// next pages travel while one is saved.
  static let pagesInFlight = 4

  private let onSynced: @Sendable (ConversationID, Int) async -> Void
  private var isRunning = false
  /// Screens watching each conversation.
  private var watched: [ConversationID: Int] = [:]
  private var catchingUp: Set<ConversationID> = []
  private var catchUpAgain: Set<ConversationID> = []
  private var pauses: [ConversationID: RetryPause] = [:]
  private var retries: [ConversationID: Task<Void, Never>] = [:]
  /// One fetch at a time per conversation, whoever fetches.
  private let fetching = KeyedLock<ConversationID>()

  init(context: EngineContext, onSynced: @escaping @Sendable (ConversationID, Int) async -> Void) {
    self.context = context
    self.onSynced = onSynced
  }

  private var store: MessageStore { context.store }

  // MARK: - Lifecycle

  func start() {
    isRunning = true
  }

  /// No retry starts or waits any more; a fetch in flight finishes and is saved.
  func stop() {
    isRunning = false
    for conversation in retries.keys.sorted() { retries[conversation]?.cancel() }
    retries.removeAll()
  }

  // MARK: - Saving

  /// Saves messages from the server, then fills a gap if the save revealed one, and reports
  /// the position. Returns nil when nothing could be saved.
  @discardableResult
  func save(_ records: [MessageRecord], in conversation: ConversationID) async -> SaveOutcome? {
    let outcome: SaveOutcome
    do {
      outcome = try await store.saveServerMessages(records, in: conversation, me: context.me)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
      return nil
    }
    let now = context.clock.uptime()
    for record in records where record.senderID == context.me {
      await context.metrics.recordSent(record.clientID, at: now)
    }
    // An edit leaves its message's mentions unknown until the message is asked for again.
    if records.contains(where: { $0.kind == .edit }) { start(conversation) }
    if let synced = outcome.syncedUpTo {
      if outcome.hasGap {
        if !catchingUp.contains(conversation) {
          await context.metrics.recordGap()
          context.log.write(
            LogRecord(
              .info, "sync.gap", [("conversation", "\(conversation)"), ("after", "\(synced)")]))
        }
        // A catch-up in flight may have asked before this message existed: it goes again.
        start(conversation)
      }
      await onSynced(conversation, synced)
    }
    return outcome
  }

  /// Saves a page's readable items; returns how many.
  func save(_ items: [Item], in conversation: ConversationID) async -> Int {
    let records = items.compactMap(MessageRecord.init)
    if records.count != items.count {
      context.log.write(
        LogRecord(
          .warning, "sync.unreadable_messages", [("count", "\(items.count - records.count)")]))
    }
    await save(records, in: conversation)
    return records.count
  }

  // MARK: - Watching

  /// A screen opened the conversation: catch it up, and keep catching it up after reconnects
  /// until `unwatch`.
  func watch(_ conversation: ConversationID) {
    watched[conversation, default: 0] += 1
    start(conversation)
  }

  func unwatch(_ conversation: ConversationID) {
    let count = (watched[conversation] ?? 1) - 1
    watched[conversation] = count > 0 ? count : nil
  }

  /// The conversations on screen now.
  func watchedConversations() -> [ConversationID] {
    watched.keys.sorted()
  }

  // MARK: - Catching up in the background

  /// After a (re)connect: catches up every conversation the server is ahead in, and every
  /// conversation on screen. Returns once they have started.
  func catchUpAll() async {
    let conversations: [ConversationRecord]
    do {
      conversations = try await store.conversations()
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return
    }
    for conversation in conversations {
      let behind = conversation.syncedUpTo.map { conversation.lastSequence > $0 } ?? false
      if behind || watched[conversation.id] != nil {
        start(conversation.id)
      }
    }
  }

  /// Starts a catch-up unless one is running; a running one goes round once more.
  func start(_ conversation: ConversationID) {
    guard !catchingUp.contains(conversation) else {
      catchUpAgain.insert(conversation)
      return
    }
    catchingUp.insert(conversation)
    context.spawn { await self.run(conversation) }
  }

  private func run(_ conversation: ConversationID) async {
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
      pauses[conversation] = nil
      return
    }
    guard failure.isTemporary, isRunning else { return }
    retries[conversation]?.cancel()
    retries[conversation] = context.spawn { await self.retry(conversation, after: failure) }
  }

  private func retry(_ conversation: ConversationID, after failure: RequestFailure) async {
    let pause = pauses[conversation] ?? RetryPause(context: context)
    pauses[conversation] = pause
    await pause.wait(retryAfter: failure.retryAfter)
    // Cancelled (a stop), or replaced by a newer retry: this one is over.
    guard !Task.isCancelled else { return }
    retries[conversation] = nil
    if isRunning { start(conversation) }
  }

  // MARK: - Fetching

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

  /// Fetches what this device lacks above its sync position (`?after=`, 200 at a time), after
  /// the newest page if the conversation was never fetched. Returns the messages fetched.
  /// With `rounds`, at most that many rounds of `pagesInFlight` pages (a push's bounded
  /// catch-up); what is left comes with the next catch-up.
  @discardableResult
  func catchUp(
    _ conversation: ConversationID, rounds: Int? = nil, progress: ((Int) -> Void)? = nil
  ) async throws(RequestFailure) -> Int {
    try await fetching.withLock(conversation) { () async throws(RequestFailure) -> Int in
      try await fetchMissing(conversation, rounds: rounds, progress: progress)
    }
  }

  /// The conversation's record; nil (logged) when the store cannot be read, which ends the
  /// fetch: there is nothing to fetch against.
  private func record(_ conversation: ConversationID) async -> ConversationRecord? {
    do {
      return try await store.conversation(conversation)
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return nil
    }
  }

  /// Moves the conversation's sync position; a failure is logged, and the next fetch asks from
  /// the old position again (saving is by ID, so nothing doubles).
  private func setPosition(
    _ conversation: ConversationID, syncedUpTo: Int?, historyFloor: Int?
  ) async {
    do {
      try await store.setSyncPosition(
        conversation, syncedUpTo: syncedUpTo, historyFloor: historyFloor)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
  }

  private func fetchMissing(
    _ conversation: ConversationID, rounds: Int?, progress: ((Int) -> Void)?
  ) async throws(RequestFailure) -> Int {
    guard let record = await record(conversation) else { return 0 }
    var fetched = 0
    var roundsLeft = rounds ?? Int.max
    if record.syncedUpTo == nil {
      let page = try await context.api.messages(in: conversation, limit: Self.pageSize)
      fetched += await save(page.items, in: conversation)
      let sequences = page.items.map(\.sequence)
      await setPosition(
        conversation, syncedUpTo: sequences.max() ?? 0,
        historyFloor: page.hasMore ? (sequences.min() ?? 1) : 1)
    }
    while true {
      guard let record = await self.record(conversation), let synced = record.syncedUpTo else {
        break
      }
      // As many pages as the newest sequence heard of says are missing (at least one, which
      // also asks whether there is more), fetched side by side and saved in order.
      let behind = record.lastSequence - synced
      let count = min(
        Self.pagesInFlight,
        max(1, (behind + Self.catchUpPageSize - 1) / Self.catchUpPageSize))
      let afters = (0..<count).map { synced + $0 * Self.catchUpPageSize }
      var hasMore = false
      for (after, page) in zip(afters, try await pages(of: conversation, after: afters)) {
        fetched += await save(page.items, in: conversation)
        // The server promises no holes: a contiguous page that starts at or below what is held
        // moves the position to its end even over a message this client could not read (and
        // dropped), so one bad message cannot hold every later one back.
        let sequences = page.items.map(\.sequence)
        let held = await self.record(conversation)?.syncedUpTo ?? synced
        if let last = sequences.last, after <= held, last > held,
          sequences == Array((after + 1)...last)
        {
          await setPosition(conversation, syncedUpTo: last, historyFloor: nil)
        }
        hasMore = page.hasMore
      }
      progress?(fetched)
      let now = await self.record(conversation)?.syncedUpTo ?? synced
      roundsLeft -= 1
      // No progress means the server broke its no-holes promise: stop rather than spin.
      guard hasMore, now > synced, roundsLeft > 0 else { break }
    }
    try await refreshEdited(conversation)
    await context.metrics.recordCatchUp(messages: fetched)
    if fetched > 0 {
      context.log.write(
        LogRecord(
          .info, "sync.caught_up",
          [("conversation", "\(conversation)"), ("messages", "\(fetched)")]))
    }
    return fetched
  }

  /// Messages whose mentions an edit made unknown here (`MessagesTable.mentionsUnknown`): each
  /// is asked for again in its current state, one `?around=` page of one item (the server
  /// recomputes mentions on an edit, and an edit item does not carry them). A failure throws,
  /// so the catch-up's retry asks again.
  private func refreshEdited(_ conversation: ConversationID) async throws(RequestFailure) {
    let sequences: [Int]
    do {
      sequences = try await store.mentionsUnknown(in: conversation)
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return
    }
    for sequence in sequences {
      let page = try await context.api.messages(in: conversation, around: sequence, limit: 1)
      let records = page.items.compactMap(MessageRecord.init)
      await save(records, in: conversation)
      // Not served as itself (a server that cannot see it for me): known as none.
      if !records.contains(where: { $0.sequence == sequence }) {
        do {
          try await store.forgetUnknownMentions(at: sequence, in: conversation)
        } catch {
          context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
        }
      }
    }
  }

  /// The pages `?after=` each of `afters`, asked for side by side and returned in the order
  /// asked. A failure ends the list there (the next round asks again from the position); a
  /// failure of the first page throws.
  private func pages(of conversation: ConversationID, after afters: [Int])
    async throws(RequestFailure) -> [ItemPage]
  {
    let api = context.api
    let size = Self.catchUpPageSize
    let results = await withTaskGroup(of: (Int, Result<ItemPage, RequestFailure>).self) { group in
      for (index, after) in afters.enumerated() {
        group.addTask {
          do throws(RequestFailure) {
            return (
              index, .success(try await api.messages(in: conversation, after: after, limit: size))
            )
          } catch {
            return (index, .failure(error))
          }
        }
      }
      var results: [(Int, Result<ItemPage, RequestFailure>)] = []
      for await result in group { results.append(result) }
      return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
    var pages: [ItemPage] = []
    for result in results {
      switch result {
      case .success(let page): pages.append(page)
      case .failure(let error):
        if pages.isEmpty { throw error }
        return pages
      }
    }
    return pages
  }

  // MARK: - History

  /// Fetches 50 messages older than the oldest held (`?before=`). Returns false at the
  /// beginning of the conversation.
  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    guard let record = await record(conversation) else {
      throw .notFound("conversation \(conversation)")
    }
    guard record.syncedUpTo != nil else {
      do {
        try await catchUp(conversation)
      } catch {
        throw error.chatError
      }
      return (await self.record(conversation)?.historyFloor ?? 1) > 1
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
    let floor = await record(conversation)?.historyFloor ?? 1
    guard floor > 1 else { return false }
    let page = try await context.api.messages(
      in: conversation, before: floor, limit: Self.pageSize)
    _ = await save(page.items, in: conversation)
    let newFloor = page.hasMore ? (page.items.map(\.sequence).min() ?? floor) : 1
    await setPosition(conversation, syncedUpTo: nil, historyFloor: newFloor)
    return page.hasMore
  }
}
