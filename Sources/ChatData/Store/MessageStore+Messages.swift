import ChatDomain
import ChatIdentifiers
import Foundation

/// The writer's entry points to `messages` (`MessagesTable`): each runs the rule of the same
/// name in one transaction, or as one read.
extension MessageStore {
  @discardableResult
  package func saveServerMessages(
    _ messages: [MessageRecord], in conversation: ConversationID, me: UserID
  ) throws(StoreError) -> SaveOutcome {
    try write { try MessagesTable.saveServerMessages(messages, in: conversation, me: me, tx: $0) }
  }

  func setSyncPosition(
    _ conversation: ConversationID, syncedUpTo: Int?, historyFloor: Int?
  ) throws(StoreError) -> SaveOutcome {
    try write {
      try MessagesTable.setSyncPosition(
        conversation, syncedUpTo: syncedUpTo, historyFloor: historyFloor, tx: $0)
    }
  }

  func newestSequence(in conversation: ConversationID) throws(StoreError) -> Int? {
    try read { try MessagesTable.newestSequence(in: conversation, db: $0) }
  }

  func message(_ id: MessageID, sender: UserID) throws(StoreError) -> MessageRecord? {
    try read { try MessagesTable.message(id, sender: sender, db: $0) }
  }

  /// Whether an item with this sequence is held.
  func holds(_ sequence: Int, in conversation: ConversationID) throws(StoreError) -> Bool {
    try read { db in
      try db.scalarInt(
        "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ? AND sequence = ?)",
        conversation.rawValue, sequence) == 1
    }
  }

  func mentionsUnknown(in conversation: ConversationID) throws(StoreError) -> [Int] {
    try read { try MessagesTable.mentionsUnknown(in: conversation, db: $0) }
  }

  /// The message at `sequence` could not be served again: its mentions are known as none.
  func forgetUnknownMentions(at sequence: Int, in conversation: ConversationID)
    throws(StoreError)
  {
    try write { tx in
      try tx.db.run(
        "UPDATE messages SET mentions = NULL WHERE conversation_id = ? AND sequence = ? AND mentions = ?",
        conversation.rawValue, sequence, MessagesTable.unknownMentions)
    }
  }

  func message(_ id: MessageID, in conversation: ConversationID) throws(StoreError)
    -> MessageRecord?
  {
    try read { try MessagesTable.message(id, in: conversation, db: $0) }
  }

  // MARK: - My own edits and deletes

  func editOwn(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, text: String,
    id: MessageID, at now: Date
  ) throws(StoreError) -> LocalChangeOutcome {
    try write {
      try MessagesTable.editOwn(
        target, in: conversation, sender: sender, text: text, id: id, at: now, tx: $0)
    }
  }

  func deleteOwn(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, id: MessageID,
    at now: Date
  ) throws(StoreError) -> LocalChangeOutcome {
    try write {
      try MessagesTable.deleteOwn(target, in: conversation, sender: sender, id: id, at: now, tx: $0)
    }
  }

  func discardHeld(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, id: MessageID,
    at now: Date, queuedAt: Double
  ) throws(StoreError) -> LocalChangeOutcome {
    try write {
      try MessagesTable.discardHeld(
        target, in: conversation, sender: sender, id: id, at: now, queuedAt: queuedAt, tx: $0)
    }
  }

  // MARK: - My reactions and pins

  func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, sender: UserID,
    remove: Bool, id: MessageID, at now: Date
  ) throws(StoreError) -> LocalChangeOutcome {
    try write {
      try MessagesTable.react(
        emoji, to: target, in: conversation, sender: sender, remove: remove, id: id, at: now,
        tx: $0)
    }
  }

  func pin(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, remove: Bool,
    id: MessageID, at now: Date
  ) throws(StoreError) -> LocalChangeOutcome {
    try write {
      try MessagesTable.pin(
        target, in: conversation, sender: sender, remove: remove, id: id, at: now, tx: $0)
    }
  }

  func dropRefusedMark(_ id: MessageID, sender: UserID) throws(StoreError) -> Bool {
    try write { try MessagesTable.dropRefusedMark(id, sender: sender, tx: $0) }
  }
}
