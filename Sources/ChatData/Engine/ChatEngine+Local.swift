import ChatDomain
import ChatIdentifiers
import Foundation
import Support

extension ChatEngine {
  /// A conversation as this device holds it, in display order, without asking the server:
  /// the newest `limit` messages, then the unsent ones.
  public func localMessages(in conversation: ConversationID, limit: Int = 50)
    async throws(ChatError) -> [Message]
  {
    do {
      let snapshot = try await context.store.snapshot(conversation, limit: max(1, limit))
      guard snapshot.conversation != nil else {
        throw ChatError.notFound("conversation \(conversation)")
      }
      return RecordMapping.messages(snapshot, me: context.me)
    } catch let error as StoreError {
      throw error.chatError
    } catch let error as ChatError {
      throw error
    } catch {
      throw .storage("\(error)")
    }
  }

  /// Up to `limit` messages centred on `sequence` (API.md Part 3's `around`), in display
  /// order: from the database, after one `?around=` page from the server when the device does
  /// not hold that item (saved like any page).
  public func messages(in conversation: ConversationID, around sequence: Int, limit: Int = 50)
    async throws(ChatError) -> [Message]
  {
    guard try await localConversations().contains(where: { $0.id == conversation }) else {
      throw ChatError.notFound("conversation \(conversation)")
    }
    try await messagesSource.fetch(around: sequence, in: conversation)
    do {
      let snapshot = try await context.store.snapshot(
        conversation, around: sequence, limit: max(1, limit))
      return RecordMapping.messages(snapshot, me: context.me)
    } catch {
      throw error.chatError
    }
  }

  /// The conversation list as this device holds it, without asking the server.
  public func localConversations() async throws(ChatError) -> [ConversationSummary] {
    do {
      return try await context.store.listRows(me: context.me).map {
        RecordMapping.summary($0, me: context.me)
      }
    } catch {
      throw error.chatError
    }
  }

  /// Marks everything held in a conversation read, and tells the server now (not throttled:
  /// a one-shot command). Returns the number marked read up to, or nil when there is nothing.
  @discardableResult
  public func markAllRead(in conversation: ConversationID) async throws(ChatError) -> Int? {
    let newest: Int?
    do {
      guard try await context.store.conversation(conversation) != nil else {
        throw ChatError.notFound("conversation \(conversation)")
      }
      newest = try await context.store.newestSequence(in: conversation)
    } catch let error as StoreError {
      throw error.chatError
    } catch let error as ChatError {
      throw error
    } catch {
      throw .storage("\(error)")
    }
    guard let newest, newest > 0 else { return nil }
    do {
      try await context.store.raiseOwnRead(conversation, upTo: newest)
    } catch {
      throw error.chatError
    }
    do {
      try await context.api.postRead(upTo: newest, in: conversation)
    } catch {
      throw error.chatError
    }
    do {
      try await context.store.acknowledgeRead(conversation, upTo: newest)
    } catch {
      // The server has the number; only the "owed" mark stays, so the next start posts it
      // again, which changes nothing.
      context.log.write(LogRecord(.error, "store.save_failed", [("error", "\(error)")]))
    }
    return newest
  }

  /// Every committed change to the database, as the conversations it touched. For tools that
  /// print changes as they happen.
  public func changedConversations() -> AsyncStream<Set<ConversationID>> {
    let store = context.store
    return context.forward(
      bufferingNewest: .max, { await store.changes() }, transform: { $0.conversations })
  }
}

extension ChatEngine {
  /// Sends every draft the server is owed once, now (for one-shot tools: no throttle, no
  /// backoff); returns how many are still owed.
  public func sendOwedDrafts() async -> Int {
    await drafts.sendOwedOnce()
  }
}
