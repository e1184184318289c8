import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// Combines message rows and receipt numbers into `Message` values (seed 000 part 4), and
/// passes each action to the repository that owns it. It owns no source of its own.
///
/// - Send state comes from the row: no sequence → sending (or failed if marked), else sent.
/// - Receipt state comes from the numbers: none ever loaded → unknown; up to `readUpTo` → read;
///   up to `deliveredUpTo` → delivered; else not delivered.
/// - Order: by sequence; messages still sending go last, in client-ID order.
/// - A screen sees a window of the newest 50 held messages; `loadOlder` widens it by 50, from
///   the database first and from the server only when the database has no more. Opened at a
///   message (`open(at:)`), the window is centred on it instead, fetched with `?around=` when
///   the device does not hold it, until `showNewest`.
actor CompositeMessageRepository: MessageRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  static let windowStep = 50

  private let messagesSource: MessagesRepository
  private let receiptsSource: ReceiptsRepository
  private let drafts: DraftsRepository
  /// What each watched conversation's screen sees: its newest rows, or rows centred on one.
  private struct Window {
    var limit = CompositeMessageRepository.windowStep
    /// The sequence it is centred on; nil: the newest.
    var around: Int?
  }
  private var windows: [ConversationID: Window] = [:]
  private var watchers: [ConversationID: Int] = [:]

  init(
    context: EngineContext, messages: MessagesRepository, receipts: ReceiptsRepository,
    drafts: DraftsRepository
  ) {
    self.drafts = drafts
    self.context = context
    self.messagesSource = messages
    self.receiptsSource = receipts
  }

  // MARK: - Watching

  nonisolated func messages(in conversation: ConversationID) -> AsyncStream<[Message]> {
    let context = context
    let openedAt = context.clock.uptime()
    let opened = OnceFlag()
    let inner = context.observe(
      relevant: { $0.conversations.contains(conversation) },
      query: {
        await self.current(conversation)
      })
    let (stream, continuation) = AsyncStream.makeStream(
      of: [Message].self, bufferingPolicy: .bufferingNewest(1))
    let task = context.spawn {
      await self.beginWatching(conversation)
      for await messages in inner {
        continuation.yield(messages)
        if opened.set() {
          await context.metrics.recordOpen(after: context.clock.uptime() - openedAt)
        }
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in
      task.cancel()
      context.spawn { await self.endWatching(conversation) }
    }
    return stream
  }

  /// On watch, ask both sources to sync; the database answers the screen meanwhile.
  private func beginWatching(_ conversation: ConversationID) async {
    // A screen that opens shows the newest 50, however far an earlier one scrolled back.
    if watchers[conversation, default: 0] == 0 { windows[conversation] = Window() }
    watchers[conversation, default: 0] += 1
    await messagesSource.watch(conversation)
    let receipts = receiptsSource
    context.spawn { await receipts.sync(conversation) }
  }

  private func endWatching(_ conversation: ConversationID) async {
    watchers[conversation, default: 1] -= 1
    await messagesSource.unwatch(conversation)
  }

  private func current(_ conversation: ConversationID) async -> [Message]? {
    let window = windows[conversation] ?? Window()
    guard
      let snapshot = await context.readOrLog({
        try await self.snapshot(conversation, window)
      })
    else {
      return nil
    }
    let messages = RecordMapping.messages(snapshot, me: context.me)
    guard context.knownBugs.contains(.orderByDeviceClock) else { return messages }
    return messages.sorted { $0.sentAt < $1.sentAt }
  }

  // MARK: - Actions

  @discardableResult
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID {
    let id = try await messagesSource.send(text, in: conversation)
    await drafts.messageSent(in: conversation)
    return id
  }

  @discardableResult
  func reply(_ text: String, to target: MessageID, in conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    let id = try await messagesSource.reply(text, to: target, in: conversation)
    await drafts.messageSent(in: conversation)
    return id
  }

  @discardableResult
  func forward(_ message: MessageID, from source: ConversationID, to conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    try await messagesSource.forward(message, from: source, to: conversation)
  }

  func saveDraft(_ text: String, replyTo: MessageID?, in conversation: ConversationID)
    async throws(ChatError)
  {
    try await drafts.type(text, replyTo: replyTo, in: conversation)
  }

  func edit(_ id: MessageID, in conversation: ConversationID, to text: String)
    async throws(ChatError)
  {
    try await messagesSource.edit(id, in: conversation, to: text)
  }

  func delete(_ id: MessageID, in conversation: ConversationID) async throws(ChatError) {
    try await messagesSource.delete(id, in: conversation)
  }

  func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, remove: Bool
  ) async throws(ChatError) {
    try await messagesSource.react(emoji, to: target, in: conversation, remove: remove)
  }

  func pin(_ target: MessageID, in conversation: ConversationID, remove: Bool)
    async throws(ChatError)
  {
    try await messagesSource.pin(target, in: conversation, remove: remove)
  }

  func retry(_ id: MessageID) async {
    await messagesSource.retry(id)
  }

  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    var window = windows[conversation] ?? Window()
    let snapshot: ConversationSnapshot
    do {
      snapshot = try await self.snapshot(conversation, window)
    } catch {
      throw error.chatError
    }
    window.limit += Self.windowStep
    if snapshot.hasOlderHeld {
      windows[conversation] = window
      await context.store.invalidate(conversation)
      return true
    }
    let more: Bool
    if window.around != nil, let lowest = snapshot.messages.compactMap(\.sequence).min() {
      // Opened at a message: older pages from the server below what the window shows.
      more = lowest > 1 ? try await messagesSource.fetch(before: lowest, in: conversation) : false
    } else {
      more = try await messagesSource.loadOlder(in: conversation)
    }
    windows[conversation] = window
    await context.store.invalidate(conversation)
    return more
  }

  /// Opens the conversation at `sequence` (a quote, a search hit, the first unread): the
  /// window is centred on it, from the database when the device holds it, else after one
  /// `?around=` page from the server. Rows keep their identities, so nothing jumps.
  func open(at sequence: Int, in conversation: ConversationID) async throws(ChatError) {
    try await messagesSource.fetch(around: sequence, in: conversation)
    windows[conversation] = Window(around: sequence)
    await context.store.invalidate(conversation)
  }

  /// Back to the newest messages.
  func showNewest(in conversation: ConversationID) async {
    guard windows[conversation]?.around != nil else { return }
    windows[conversation] = Window()
    await context.store.invalidate(conversation)
  }

  private func snapshot(_ conversation: ConversationID, _ window: Window) async throws(StoreError)
    -> ConversationSnapshot
  {
    if let around = window.around {
      return try await context.store.snapshot(conversation, around: around, limit: window.limit)
    }
    return try await context.store.snapshot(conversation, limit: window.limit)
  }

  nonisolated func markRead(upTo sequence: Int, in conversation: ConversationID) {
    let receipts = receiptsSource
    context.spawn { await receipts.markRead(upTo: sequence, in: conversation) }
  }
}

/// True the first time `set()` is called.
final class OnceFlag: Sendable {
  private let done = Locked(false)

  func set() -> Bool {
    done.withLock { done in
      defer { done = true }
      return !done
    }
  }
}
