import ChatData
import ChatDomain
import ChatIdentifiers
import SQLite

/// One message row a device's database holds, as the simulation's checker reads it: every
/// row, in every conversation, with no limit (search stops at 500 and needs a word).
///
/// `package`, not `public`: only targets of this package see it, and no app depends on it
/// (this module is not a product).
package struct HeldMessage: Sendable, Equatable {
  package let conversationID: ConversationID
  package let messageID: MessageID
  package let senderID: UserID
  /// Nil while the message waits for the server.
  package let sequence: Int?

  package init(
    conversationID: ConversationID, messageID: MessageID, senderID: UserID, sequence: Int?
  ) {
    self.conversationID = conversationID
    self.messageID = messageID
    self.senderID = senderID
    self.sequence = sequence
  }
}

extension ChatEngine {
  /// Every message row this device holds, by conversation, then sequence (unsent last).
  package func heldMessages() async throws -> [HeldMessage] {
    try await store.allMessages().map {
      HeldMessage(
        conversationID: $0.conversationID, messageID: $0.clientID, senderID: $0.senderID,
        sequence: $0.sequence)
    }
  }
}

extension ChatEngine {
  /// Whether this device still holds `words` anywhere a deleted text could stay: a row's text
  /// or the body kept for a retry, or the search index (as a phrase of those words). The
  /// simulation's erasure check.
  package func holdsText(_ words: String) async throws -> Bool {
    try await store.holdsText(words)
  }
}

extension MessageStore {
  /// See `ChatEngine.holdsText(_:)`: the text columns, then the word index as a phrase.
  func holdsText(_ words: String) throws(StoreError) -> Bool {
    try read { db in
      let rows =
        try db.scalarInt(
          """
          SELECT count(*) FROM messages
          WHERE instr(text, ?) > 0 OR instr(coalesce(posted_text, ''), ?) > 0
            OR instr(coalesce(restore_text, ''), ?) > 0
          """, words, words, words) ?? 0
      let phrase = "\"" + words.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      let indexed =
        try db.scalarInt(
          "SELECT count(*) FROM message_search WHERE message_search MATCH ?", phrase) ?? 0
      return rows + indexed > 0
    }
  }
}
