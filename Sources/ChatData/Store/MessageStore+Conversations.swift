import ChatDomain
import ChatIdentifiers
import Foundation

/// The writer's entry points to `conversations` (`ConversationsTable`) and the receipt numbers
/// (`ReceiptsTable`): each runs the rule of the same name in one transaction, or as one read.
extension MessageStore {
  func conversation(_ id: ConversationID) throws(StoreError) -> ConversationRecord? {
    try read { try ConversationsTable.conversation(id, db: $0) }
  }

  package func conversations() throws(StoreError) -> [ConversationRecord] {
    try read { try ConversationsTable.all(db: $0) }
  }

  /// `ConversationsTable.save`.
  package func saveConversations(
    _ conversations: [ServerConversation], lastMessages: [MessageRecord] = [],
    cursor: String? = nil, blocked: [UserID]? = nil, me: UserID
  ) throws(StoreError) {
    try write {
      // The block list in the cursor's transaction: a list not saved must come again.
      if let blocked { try BlockedTable.replace(with: Set(blocked), tx: $0) }
      try ConversationsTable.save(
        conversations, lastMessages: lastMessages, cursor: cursor, me: me, tx: $0)
    }
  }

  // MARK: - Blocking

  /// Replaces the users I blocked with the server's whole list (`BlockedTable`).
  func saveBlocked(_ users: [UserID]) throws(StoreError) {
    try write { try BlockedTable.replace(with: Set(users), tx: $0) }
  }

  /// The users I blocked, sorted.
  package func blockedUsers() throws(StoreError) -> [UserID] {
    try read { try BlockedTable.blocked(db: $0) }.sorted()
  }

  func setMuted(_ conversation: ConversationID, until: Date?, mentionsPush: Bool)
    throws(StoreError)
  {
    try write {
      try ConversationsTable.setMuted(
        conversation, until: until, mentionsPush: mentionsPush, tx: $0)
    }
  }

  func raiseLastSequence(_ conversation: ConversationID, to sequence: Int) throws(StoreError) {
    try write { try ConversationsTable.raiseLastSequence(conversation, to: sequence, tx: $0) }
  }

  // MARK: - My read number

  @discardableResult
  func raiseOwnRead(_ conversation: ConversationID, upTo sequence: Int) throws(StoreError) -> Bool {
    try write { try ConversationsTable.raiseOwnRead(conversation, upTo: sequence, tx: $0) }
  }

  func acknowledgeRead(_ conversation: ConversationID, upTo sequence: Int) throws(StoreError) {
    try write { try ConversationsTable.acknowledgeRead(conversation, upTo: sequence, tx: $0) }
  }

  func unacknowledgedReads() throws(StoreError) -> [(ConversationID, Int)] {
    try read { try ConversationsTable.unacknowledgedReads(db: $0) }
  }

  // MARK: - Receipts

  /// `ReceiptsTable.save`.
  func saveReceipts(
    _ receipts: ReceiptsRecord, members: [MemberReceiptRecord], in conversation: ConversationID,
    me: UserID
  ) throws(StoreError) {
    try write {
      try ReceiptsTable.save(receipts, members: members, in: conversation, me: me, tx: $0)
    }
  }

  func saveMemberReceipt(
    _ member: MemberReceiptRecord, in conversation: ConversationID, me: UserID
  ) throws(StoreError) {
    try write { try ReceiptsTable.saveMemberReceipt(member, in: conversation, me: me, tx: $0) }
  }

  func receipts(in conversation: ConversationID) throws(StoreError) -> ReceiptsRecord? {
    try read { try ReceiptsTable.receipts(conversation, db: $0) }
  }
}

/// My drafts (`ConversationsTable+Drafts.swift`).
extension MessageStore {
  @discardableResult
  func typeDraft(_ text: String, replyTo: MessageID?, in conversation: ConversationID)
    throws(StoreError) -> Bool
  {
    try write { try ConversationsTable.typeDraft(text, replyTo: replyTo, in: conversation, tx: $0) }
  }

  func clearDraftAfterSend(_ conversation: ConversationID) throws(StoreError) {
    try write { try ConversationsTable.clearDraftAfterSend(conversation, tx: $0) }
  }

  func owedDrafts() throws(StoreError) -> [DraftRecord] {
    try read { try ConversationsTable.owedDrafts(db: $0) }
  }

  func draftSaved(_ sent: DraftRecord, as version: Int) throws(StoreError) {
    try write { try ConversationsTable.draftSaved(sent, as: version, tx: $0) }
  }

  func draftConflicted(_ conversation: ConversationID, serverVersion: Int) throws(StoreError) {
    try write {
      try ConversationsTable.draftConflicted(conversation, serverVersion: serverVersion, tx: $0)
    }
  }

  func dropOwedDraft(_ conversation: ConversationID, discarding: Bool) throws(StoreError) {
    try write {
      try ConversationsTable.dropOwedDraft(conversation, discarding: discarding, tx: $0)
    }
  }
}
