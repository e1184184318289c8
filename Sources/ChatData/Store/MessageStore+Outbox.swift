import ChatDomain
import ChatIdentifiers
import Foundation

/// The writer's entry points to the outbox (`OutboxRows`): each runs the rule of the same name
/// in one transaction, or as one read.
extension MessageStore {
  @discardableResult
  func insertPending(_ message: MessageRecord, queuedAt: Double) throws(StoreError)
    -> Participation?
  {
    try write { try OutboxRows.insertPending(message, queuedAt: queuedAt, tx: $0) }
  }

  func unsent() throws(StoreError) -> [MessageRecord] {
    try read { try OutboxRows.unsent(db: $0) }
  }

  func startPosting(
    in conversation: ConversationID, newestFirst: Bool = false, staleBefore: Double? = nil
  ) throws(StoreError) -> (record: MessageRecord, isFirst: Bool)? {
    try write {
      try OutboxRows.startPosting(
        in: conversation, newestFirst: newestFirst, staleBefore: staleBefore, tx: $0)
    }
  }

  func recordFailedAttempt(
    _ id: MessageID, sender: UserID, reason: String, nextAttemptAt: Date?
  ) throws(StoreError) {
    try write {
      try OutboxRows.recordFailedAttempt(
        id, sender: sender, reason: reason, nextAttemptAt: nextAttemptAt, tx: $0)
    }
  }

  func forgetPostStart(_ id: MessageID, sender: UserID) throws(StoreError) {
    try write { try OutboxRows.forgetPostStart(id, sender: sender, tx: $0) }
  }

  func conversationsWithUnsent() throws(StoreError) -> [ConversationID] {
    try read { try OutboxRows.conversationsWithUnsent(db: $0) }
  }

  func outboxCount() throws(StoreError) -> Int {
    try read { try OutboxRows.count(db: $0) }
  }

  @discardableResult
  func markFailed(_ id: MessageID, sender: UserID, reason: String) throws(StoreError)
    -> ConversationID?
  {
    try write { try OutboxRows.markFailed(id, sender: sender, reason: reason, tx: $0) }
  }

  func requeue(_ id: MessageID, sender: UserID, queuedAt: Double) throws(StoreError) -> Bool {
    try write { try OutboxRows.requeue(id, sender: sender, queuedAt: queuedAt, tx: $0) }
  }

  /// The outbox as the user sees it (`OutboxRows.shown`).
  func outboxRows(sender: UserID) throws(StoreError) -> [OutboxRow] {
    try read { try OutboxRows.shown(sender: sender, db: $0) }
  }
}
