import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// Owns receipts (seed 000 part 6): `GET` receipts, `POST` read and delivered, and the socket's
/// receipt events, saved to the store.
///
/// Receipts are "up to" numbers, so one request covers every message below it. Posting follows
/// one rule for both numbers, per conversation: at most one request every two seconds, and only
/// when the number went up. A post that failed for a passing reason is tried again with backoff
/// while the app is in the foreground (a higher number, when one comes, covers it), and a read
/// number the server never confirmed is posted again at the next start. A failed `GET` keeps
/// the numbers already saved; with none saved, ticks stay unknown.
actor ReceiptsRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// The shortest time between two posts of the same number in one conversation.
  static let minimumInterval: Duration = .seconds(2)

  enum Kind: Hashable, Sendable {
    case read, delivered
  }

  private struct Key: Hashable {
    var kind: Kind
    var conversation: ConversationID
  }

  private struct Poster {
    var wanted = 0
    var posted = 0
    var lastPost: Duration?
    var busy = false
  }

  private var posters: [Key: Poster] = [:]
  private var posting: [Key: Task<Void, Never>] = [:]
  private var isRunning = false

  init(context: EngineContext) {
    self.context = context
  }

  private var store: MessageStore { context.store }

  func start() {
    isRunning = true
    // Sorted, so a replayed run posts in the same order.
    for key in posters.keys.sorted(by: Self.order) { kick(key) }
  }

  /// Stops posting; waits and retries in progress end (what is owed stays owed).
  func stop() {
    isRunning = false
    for key in posting.keys.sorted(by: Self.order) { posting[key]?.cancel() }
    posting.removeAll()
  }

  private static func order(_ lhs: Key, _ rhs: Key) -> Bool {
    (lhs.conversation.rawValue, lhs.kind == .read ? 0 : 1)
      < (rhs.conversation.rawValue, rhs.kind == .read ? 0 : 1)
  }

  // MARK: - Reading receipts

  /// Fetches the receipt numbers now. A failure keeps what was saved.
  func sync(_ conversation: ConversationID) async {
    do {
      let dto = try await context.api.receipts(in: conversation)
      try await store.saveReceipts(
        ReceiptsRecord(deliveredUpTo: dto.deliveredUpTo, readUpTo: dto.readUpTo),
        members: dto.members.compactMap(MemberReceiptRecord.init), in: conversation,
        me: context.me)
    } catch {
      context.log.write(
        LogRecord(.info, "receipts.fetch_failed", [("conversation", "\(conversation)")]))
    }
  }

  /// A receipt event from the socket: one member's numbers rose.
  func receive(conversationID: String, _ member: MemberReceipts) async {
    guard let conversation = ConversationID(rawValue: conversationID),
      let record = MemberReceiptRecord(member), member.deliveredUpTo >= 0, member.readUpTo >= 0
    else {
      context.log.write(LogRecord(.warning, "live.unreadable_receipt"))
      return
    }
    do {
      try await store.saveMemberReceipt(record, in: conversation, me: context.me)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
  }

  // MARK: - Sending receipts

  /// I have seen everything up to `sequence`: the unread count drops now, the server hears
  /// within two seconds.
  func markRead(upTo sequence: Int, in conversation: ConversationID) async {
    guard sequence > 0 else { return }
    do {
      try await store.raiseOwnRead(conversation, upTo: sequence)
    } catch {
      // The unread count stays up on this device until the next save; the server still hears.
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
    request(.read, upTo: sequence, in: conversation)
  }

  /// This device holds everything up to `sequence`.
  func markDelivered(upTo sequence: Int, in conversation: ConversationID) {
    guard sequence > 0 else { return }
    request(.delivered, upTo: sequence, in: conversation)
  }

  /// Posts the delivered number of what this device holds in `conversation` now, once, whether
  /// or not the engine runs (a push handled in the background); false when it failed.
  @discardableResult
  func postDeliveredNow(in conversation: ConversationID) async -> Bool {
    let held: Int
    do {
      guard let synced = try await store.conversation(conversation)?.syncedUpTo, synced > 0
      else { return true }
      held = synced
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return false
    }
    let key = Key(kind: .delivered, conversation: conversation)
    guard held > posters[key]?.posted ?? 0 else { return true }
    do {
      try await context.api.postDelivered(upTo: held, in: conversation)
      markPosted(key, held)
      return true
    } catch {
      return false
    }
  }

  /// Posts read numbers raised here that the server never confirmed (a previous run ended
  /// first, or the post failed).
  func postOwedReads() async {
    let owed: [(ConversationID, Int)]
    do {
      owed = try await store.unacknowledgedReads()
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return
    }
    for (conversation, sequence) in owed {
      request(.read, upTo: sequence, in: conversation)
    }
  }

  private func request(_ kind: Kind, upTo sequence: Int, in conversation: ConversationID) {
    let key = Key(kind: kind, conversation: conversation)
    var poster = posters[key] ?? Poster()
    poster.wanted = max(poster.wanted, sequence)
    posters[key] = poster
    kick(key)
  }

  /// Starts posting for `key` when a number is owed and nothing is posting it yet.
  private func kick(_ key: Key) {
    guard isRunning, let poster = posters[key], poster.wanted > poster.posted, !poster.busy
    else { return }
    posters[key]?.busy = true
    posting[key] = context.spawn { await self.runPoster(key) }
  }

  /// Posts the wanted number, waiting out the interval since the last post; repeats while the
  /// number keeps rising.
  private func runPoster(_ key: Key) async {
    let pause = RetryPause(context: context)
    while isRunning, let poster = posters[key], poster.wanted > poster.posted {
      if let last = poster.lastPost {
        let wait = last + Self.minimumInterval - context.clock.uptime()
        if wait > .zero {
          // The throttle, not a retry. `try?`: its only error is the cancellation of a stop.
          guard (try? await context.clock.sleep(for: wait)) != nil else { break }
          continue
        }
      }
      let number = poster.wanted
      posters[key]?.lastPost = context.clock.uptime()
      do {
        switch key.kind {
        case .read:
          try await context.api.postRead(upTo: number, in: key.conversation)
          await acknowledgeRead(key.conversation, upTo: number)
        case .delivered:
          try await context.api.postDelivered(upTo: number, in: key.conversation)
        }
        markPosted(key, number)
        pause.reset()
      } catch .signedOut {
        // Still owed: a read number is posted again after the next sign-in's start.
        break
      } catch let error where error.isTemporary {
        // The sender's ticks wait on this number: try again, with backoff, while in the
        // foreground (a read number is also owed across restarts).
        let delay = pause.delay(retryAfter: error.retryAfter)
        context.log.write(
          LogRecord(
            .info, "receipts.will_retry",
            [("kind", "\(key.kind)"), ("reason", error.label), ("delay", "\(delay)")]))
        await pause.sleep(delay)
        guard !Task.isCancelled else { break }
      } catch {
        // A refused number (e.g. above the server's newest) is never owed again.
        context.log.write(
          LogRecord(
            .warning, "receipts.refused", [("kind", "\(key.kind)"), ("reason", error.label)]))
        markPosted(key, number)
        if key.kind == .read { await acknowledgeRead(key.conversation, upTo: number) }
      }
    }
    posters[key]?.busy = false
    posting[key] = nil
  }

  /// The server has `number` (or refused it for good): it is owed no more. A failed save is
  /// logged; the number is then posted again at the next start, which changes nothing.
  private func acknowledgeRead(_ conversation: ConversationID, upTo number: Int) async {
    do {
      try await store.acknowledgeRead(conversation, upTo: number)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
  }

  private func markPosted(_ key: Key, _ number: Int) {
    guard var poster = posters[key] else { return }
    poster.posted = max(poster.posted, number)
    posters[key] = poster
  }
}
