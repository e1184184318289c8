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
