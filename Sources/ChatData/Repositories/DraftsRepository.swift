import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// My drafts (API.md Part 3, "Drafts, on every device of the user"): saved on the device as
/// they are typed (`ConversationsTable+Drafts.swift`: one typed offline survives a kill), and
/// sent to the server at most every two seconds per conversation while they change, on the
/// version they were typed on. A 409 moves what I typed onto the server's version and sends it
/// again; a passing failure is retried with backoff while the engine runs, and what is owed is
/// sent again at the next start or reconnect. My other devices take the draft from `/v1/sync`
/// and the `conversation` event (`ConversationsTable.save`).
actor DraftsRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  /// The shortest time between two saves of one conversation's draft.
  static let minimumInterval: Duration = .seconds(2)

  private var lastPost: [ConversationID: Duration] = [:]
  private var posting: [ConversationID: Task<Void, Never>] = [:]
  private var isRunning = false

  init(context: EngineContext) {
    self.context = context
  }

  private var store: MessageStore { context.store }

  func start() async {
    isRunning = true
    await postOwed()
  }

  /// Stops sending; waits and retries in progress end (what is owed stays owed).
  func stop() {
    isRunning = false
    for conversation in posting.keys.sorted() { posting[conversation]?.cancel() }
    posting.removeAll()
  }

  /// I typed: saved here now, sent within two seconds. Throws for a text the server would
  /// refuse, or a database that cannot save it.
  func type(_ text: String, replyTo: MessageID?, in conversation: ConversationID)
    async throws(ChatError)
  {
    guard text.unicodeScalars.count <= APILimits.maxTextScalars else {
      throw .invalidInput("a draft holds at most \(APILimits.maxTextScalars) characters")
    }
    do {
      guard try await store.typeDraft(text, replyTo: replyTo, in: conversation) else { return }
    } catch {
      throw ChatError(error)
    }
    kick(conversation)
  }

  /// I sent a message in `conversation`: its draft is cleared, here and on every device.
  func messageSent(in conversation: ConversationID) async {
    do {
      try await store.clearDraftAfterSend(conversation)
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
      return
    }
    kick(conversation)
  }

  /// Sends every draft the server is owed (typed offline, or before a stop).
  func postOwed() async {
    let owed: [DraftRecord]
    do {
      owed = try await store.owedDrafts()
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return
    }
    for draft in owed { kick(draft.conversation) }
  }

  private func kick(_ conversation: ConversationID) {
    guard isRunning, posting[conversation] == nil else { return }
    posting[conversation] = context.spawn { await self.run(conversation) }
  }

  /// Saves the owed draft, waiting out the interval since the last save; repeats while it
  /// keeps changing.
  private func run(_ conversation: ConversationID) async {
    let pause = RetryPause(context: context)
    while isRunning {
      if let last = lastPost[conversation] {
        let wait = last + Self.minimumInterval - context.clock.uptime()
        if wait > .zero {
          // The throttle, not a retry. `try?`: its only error is the cancellation of a stop.
          guard (try? await context.clock.sleep(for: wait)) != nil else { break }
          continue
        }
      }
      guard
        let owed = try? await store.owedDrafts().first(where: { $0.conversation == conversation })
      else { break }
      lastPost[conversation] = context.clock.uptime()
      let outcome = await save(owed)
      if case .retry(let error) = outcome {
        let delay = pause.delay(retryAfter: error.retryAfter)
        context.log.write(
          LogRecord(.info, "draft.will_retry", [("reason", error.label), ("delay", "\(delay)")]))
        await pause.sleep(delay)
      } else {
        pause.reset()
      }
      if outcome == .stop || Task.isCancelled { break }
    }
    posting[conversation] = nil
  }

  /// Sends every owed draft once, now (one-shot tools: no throttle, no retry); returns how
  /// many are still owed.
  func sendOwedOnce() async -> Int {
    let owed = (try? await store.owedDrafts()) ?? []
    for draft in owed { _ = await save(draft) }
    return (try? await store.owedDrafts().count) ?? owed.count
  }

  private enum SaveOutcome: Equatable {
    /// Saved, or moved onto the server's version (still owed, then).
    case done
    /// A passing failure: try again later.
    case retry(RequestFailure)
    /// Signed out, refused for good, or the database failed: stop trying now.
    case stop
  }

  /// One save of `owed` on the version it was typed on, and what the answer means here.
  private func save(_ owed: DraftRecord) async -> SaveOutcome {
    let answer: APIClient.DraftAnswer
    do {
      answer = try await context.api.saveDraft(
        SaveDraft(text: owed.text, replyTo: owed.replyTo?.rawValue, baseVersion: owed.version),
        in: owed.conversation)
    } catch .signedOut {
      return .stop
    } catch let error where error.isTemporary {
      return .retry(error)
    } catch {
      // Refused for good: owed no more. When I am no longer a member (403, 404) it goes here
      // too: it can never reach my other devices, and were I added again the server would
      // serve none, so this device alone would show it for ever. Otherwise it stays here.
      context.log.write(LogRecord(.warning, "draft.refused", [("reason", error.label)]))
      var notMember = false
      if case .rejected(let status, _, _) = error { notMember = status == 403 || status == 404 }
      try? await store.dropOwedDraft(owed.conversation, discarding: notMember)
      return .stop
    }
    do {
      switch answer {
      case .saved(let version): try await store.draftSaved(owed, as: version)
      case .conflict(let server):
        context.log.write(LogRecord(.info, "draft.conflict", [("version", "\(server.version)")]))
        try await store.draftConflicted(owed.conversation, serverVersion: server.version)
      }
      return .done
    } catch {
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
      return .stop
    }
  }
}
