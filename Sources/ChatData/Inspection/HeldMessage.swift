import ChatDomain

/// One message row a device's database holds, as the simulation's checker reads it: every
/// row, in every conversation, with no limit (search stops at 500 and needs a word).
///
/// `package`, not `public`: only targets of this package see it, and no app depends on it.
package struct HeldMessage: Sendable, Equatable {
  package let conversationID: ConversationID
  package let messageID: MessageID
  package let senderID: UserID
  /// Nil while the message waits for the server.
  package let sequence: Int?
}

extension ChatEngine {
  /// Every message row this device holds, by conversation, then sequence (unsent last).
  package func heldMessages() async throws -> [HeldMessage] {
    try await context.store.allMessages().map {
      HeldMessage(
        conversationID: $0.conversationID, messageID: $0.clientID, senderID: $0.senderID,
        sequence: $0.sequence)
    }
  }
}

extension MessageStore {
  /// Every row of `messages`.
  func allMessages() throws(StoreError) -> [MessageRecord] {
    try read { db in
      try db.query(
        "SELECT \(Self.messageColumns) FROM messages "
          + "ORDER BY conversation_id, sequence IS NULL, sequence, client_id"
      ) { row in Self.messageRecord(row) }.compactMap { $0 }
    }
  }
}
