import ChatAPI
import ChatDomain
import Foundation
import SQLite
import Support

/// Owns messages (seed 000 part 5): `GET` and `POST` messages and the socket's message events,
/// all saved to the store. One shared instance per engine, so a send outlives the screen that
/// started it.
///
/// ## Receiving
/// Saves by ID, then moves the conversation's sync position over what it now holds. A message
/// above the position plus one is a gap: it is saved (it shows in place) and `?after=` the
/// position fills the gap. A conversation never fetched gets its newest page first; older
/// history comes page by page with `?before=`. (`MessagesRepository+CatchUp.swift`)
///
/// ## Sending: the outbox
/// The outbox is the unsent rows, posted oldest first, one at a time, each with the client
/// message ID it was saved with. The retry policy (`MessagesRepository+Outbox.swift`):
/// - accepted (201, or 200 for a retry the server recognised) → sent, with its sequence;
/// - timeout, offline, 5xx, 429, or an answer that could not be saved → stays sending; the
///   queue pauses with exponential backoff and jitter (never shorter than `Retry-After`) and
///   then posts the same row again, same ID; when the network comes back, a network-caused
///   pause ends at once;
/// - any other 4xx → only that message turns failed; the queue moves on to the next;
/// - a tapped retry puts a failed message at the back of the queue, same ID.
/// The queue runs while the engine is started; rows left sending by a killed app are simply
/// still in the queue at the next start.
actor MessagesRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// Page size for the newest page and for older history (seed 000).
  static let pageSize = 50
  /// Page size for catching up (the server's maximum).
  static let catchUpPageSize = 200

  var isRunning = false
  var watched: [ConversationID: Int] = [:]

  // The outbox.
  var outboxTask: Task<Void, Never>?
  var outboxWanted = false
  var outboxAttempts = 0
  var pause: Task<Void, Never>?
  var pausedByNetwork = false
  var savedAt: [MessageID: Duration] = [:]
  /// One post at a time, whoever posts (the outbox loop, or a one-shot `drainOutbox`).
  let posting = KeyedLock<Int>()

  // Catching up.
  var catchingUp: Set<ConversationID> = []
  var catchUpAgain: Set<ConversationID> = []
  var catchUpAttempts: [ConversationID: Int] = [:]
  var retries: [ConversationID: Task<Void, Never>] = [:]
  /// One fetch at a time per conversation, whoever fetches.
  let fetching = KeyedLock<ConversationID>()

  /// Told the position up to which a conversation is held, after messages were saved, so the
  /// receipts repository can say "delivered".
  let onSynced: @Sendable (ConversationID, Int) async -> Void
  /// Told about a message event for a conversation this device does not know yet; answers
  /// whether the device learned its conversations (false: the server could not be reached).
  let onUnknownConversation: @Sendable () async -> Bool
  /// A retry of learning the conversations is waiting (`learnConversationsLater`).
  var learningConversations = false

  init(
    context: EngineContext,
    onSynced: @escaping @Sendable (ConversationID, Int) async -> Void,
    onUnknownConversation: @escaping @Sendable () async -> Bool
  ) {
    self.context = context
    self.onSynced = onSynced
    self.onUnknownConversation = onUnknownConversation
  }

  var store: MessageStore { context.store }

  // MARK: - Lifecycle

  /// The app came to the foreground: the outbox may post.
  func start() {
    isRunning = true
    flushOutbox()
  }

  /// The app is going away: no new post or fetch starts. A post in flight finishes and its
  /// answer is saved; what is left stays queued.
  func stop() {
    isRunning = false
    pause?.cancel()
    for (_, retry) in retries { retry.cancel() }
    retries.removeAll()
  }

  /// Waits for the outbox loop to end (after `stop()`).
  func outboxDrained() async {
    await outboxTask?.value
  }

  // MARK: - Receiving

  /// A message event from the socket.
  func receive(_ item: Item) async {
    guard let record = MessageRecord(item) else {
      context.log.write(LogRecord(.warning, "live.unreadable_message"))
      return
    }
    if (try? await store.conversation(record.conversationID)) == nil {
      // Learn about the conversation without holding up the socket's next frames.
      let onUnknownConversation = onUnknownConversation
      context.spawn {
        if await !onUnknownConversation() { await self.learnConversationsLater() }
      }
    }
    await saveReceived([record], in: record.conversationID)
  }

  /// Saves messages, then fills a gap if the save revealed one, and reports the position.
  /// Returns nil when nothing could be saved.
  @discardableResult
  func saveReceived(_ records: [MessageRecord], in conversation: ConversationID) async
    -> SaveOutcome?
  {
    let outcome: SaveOutcome
    do {
      outcome = try await store.saveServerMessages(records, in: conversation, me: context.me)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
      return nil
    }
    for record in records where record.senderID == context.me {
      if let started = savedAt.removeValue(forKey: record.clientID) {
        await context.metrics.recordSent(
          record.clientID, savedAt: started, sentAt: context.clock.uptime())
      }
    }
    if let synced = outcome.syncedUpTo {
      if outcome.hasGap {
        if !catchingUp.contains(conversation) {
          await context.metrics.recordGap()
          context.log.write(
            LogRecord(
              .info, "sync.gap", [("conversation", "\(conversation)"), ("after", "\(synced)")]))
        }
        // A catch-up in flight may have asked before this message existed: it goes again.
        startCatchUp(conversation)
      }
      await onSynced(conversation, synced)
    }
    return outcome
  }

  /// The conversations on screen now.
  func watchedConversations() -> [ConversationID] {
    watched.keys.sorted()
  }
}
