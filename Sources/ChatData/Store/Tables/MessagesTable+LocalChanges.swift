import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// What an edit or delete made on this device did to my message (API.md Part 2, "Edits and
/// deletes").
enum LocalChangeOutcome: Sendable, Equatable {
  /// The message was unsent and its post had not started: its row changed (a delete removed
  /// it), and nothing more goes to the server.
  case inPlace
  /// The message was posted, or its post had started: the row shows the change now and an
  /// edit or delete item waits in the outbox behind it.
  case queued
  /// An edit to the text it already has: nothing to do.
  case unchanged
  /// No message of mine with that ID in that conversation.
  case notFound
  /// The message is deleted: nothing more can change it.
  case deleted
  /// I am no longer a member of the conversation: it is read-only.
  case readOnly
  /// The conversation already holds as many as it may (a pin past `APILimits.maxPins`).
  case full
}

/// My own edits and deletes in `messages`: shown at once, queued behind a message the server
/// may hold, and undone when the server refuses them.
extension MessagesTable {
  /// My message as a local change needs it.
  private struct OwnMessage {
    var rowID: Int
    var text: String
    var isDeleted: Bool
    /// Unsent and never posted (or refused, so the server holds nothing under its ID).
    var changesInPlace: Bool
    /// Still a member of its conversation.
    var isMember: Bool
    /// My forward (API.md Part 3): its post names its source, not its text, so an edit of it
    /// never changes it in place but follows it as an edit item.
    var isForward = false
  }

  private static func ownMessage(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, db: Database
  ) throws -> OwnMessage? {
    try db.query(
      """
      SELECT m.id, m.text, m.deleted, m.sequence IS NULL AND m.posted_text IS NULL,
             c.membership = 'member', m.forward_of IS NOT NULL
      FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id
      WHERE m.conversation_id = ? AND m.sender_id = ? AND m.client_id = ? AND m.kind = 'message'
      """, conversation.rawValue, sender.rawValue, id.rawValue
    ) {
      OwnMessage(
        rowID: $0.int(0), text: $0.string(1), isDeleted: $0.int(2) != 0,
        changesInPlace: $0.int(3) != 0, isMember: $0.int(4) != 0, isForward: $0.int(5) != 0)
    }.first
  }

  /// Runs `change` on my message `target` when a change may apply to it; otherwise the
  /// outcome says why not: not mine (or not here), read-only (I left), or deleted.
  private static func changing(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, db: Database,
    _ change: (OwnMessage) throws -> LocalChangeOutcome
  ) throws -> LocalChangeOutcome {
    guard let message = try ownMessage(target, in: conversation, sender: sender, db: db) else {
      return .notFound
    }
    guard message.isMember else { return .readOnly }
    guard !message.isDeleted else { return .deleted }
    return try change(message)
  }

  /// Edits my message `target`. Unsent and not yet posted (and not a forward): its row takes
  /// the text, and the post carries it. Otherwise the row shows the text at once, marked edited at `now` (this
  /// device's time, shown but never compared with the server's), and the edit item `id`
  /// waits in the outbox behind the message.
  static func editOwn(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, text: String,
    id: MessageID, at now: Date, tx: StoreTransaction
  ) throws -> LocalChangeOutcome {
    try changing(target, in: conversation, sender: sender, db: tx.db) { message in
      guard message.text != text else { return .unchanged }
      tx.touch(conversation)
      if message.changesInPlace && !message.isForward {
        try tx.db.run("UPDATE messages SET text = ? WHERE id = ?", text, message.rowID)
        return .inPlace
      }
      try tx.db.run(
        "UPDATE messages SET text = ?, pending_edited_at = ? WHERE id = ?", text,
        now.timeIntervalSince1970, message.rowID)
      try requoteReplies(to: target.rawValue, in: conversation.rawValue, tx: tx)
      try queue(
        .edit, of: target, in: conversation, sender: sender, text: text, id: id, at: now,
        restoring: message.text, db: tx.db)
      return .queued
    }
  }

  /// Deletes my message `target` for everyone. Unsent and not yet posted: its row goes, and
  /// the server never hears of it. Otherwise it turns a tombstone here at once (its text and
  /// its edits' erased from the rows and the search index in this transaction, from the
  /// index's pages by the erasure pass that follows), and the
  /// delete item `id` waits in the outbox behind it. Edits of it not yet posted are dropped;
  /// a post that has started keeps its body (`posted_text`) until the server answers it.
  static func deleteOwn(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, id: MessageID,
    at now: Date, tx: StoreTransaction
  ) throws -> LocalChangeOutcome {
    try changing(target, in: conversation, sender: sender, db: tx.db) { message in
      let db = tx.db
      tx.touch(conversation)
      try db.run(
        """
        DELETE FROM messages WHERE conversation_id = ? AND sender_id = ? AND target = ?
          AND sequence IS NULL AND posted_text IS NULL
        """, conversation.rawValue, sender.rawValue, target.rawValue)
      if message.changesInPlace {
        try db.run("DELETE FROM messages WHERE id = ?", message.rowID)
        tx.releaseMedia()
      } else {
        try db.run("UPDATE messages SET pending_edited_at = NULL WHERE id = ?", message.rowID)
        _ = try erase(
          conversation.rawValue, sender.rawValue, target.rawValue, served: false, tx: tx)
        try queue(
          .delete, of: target, in: conversation, sender: sender, text: "", id: id, at: now,
          restoring: nil, db: db)
      }
      return message.changesInPlace ? .inPlace : .queued
    }
  }

  /// Discards my held (stale) message `target`, in one transaction: never posted, its row goes;
  /// posted before (the server may hold it, its reply lost), it goes back into the outbox and
  /// the delete item `id` behind it, so the server ends with a tombstone either way, never
  /// with a message this device no longer shows. In a conversation I am no longer a member
  /// of it is `readOnly`, and nothing changes: it stays held (the server would refuse both
  /// posts).
  static func discardHeld(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, id: MessageID,
    at now: Date, queuedAt: Double, tx: StoreTransaction
  ) throws -> LocalChangeOutcome {
    let held = try tx.db.scalarInt(
      """
      SELECT count(*) FROM messages
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND state = 3
        AND sequence IS NULL
      """, conversation.rawValue, sender.rawValue, target.rawValue)
    guard held == 1 else { return .notFound }
    guard try ownMessage(target, in: conversation, sender: sender, db: tx.db)?.isMember == true
    else { return .readOnly }
    _ = try OutboxRows.requeue(target, sender: sender, queuedAt: queuedAt, tx: tx)
    return try deleteOwn(target, in: conversation, sender: sender, id: id, at: now, tx: tx)
  }

  /// Puts an edit or delete item of mine at the back of the outbox.
  private static func queue(
    _ kind: MessageRecord.Kind, of target: MessageID, in conversation: ConversationID,
    sender: UserID, text: String, id: MessageID, at now: Date, restoring previous: String?,
    db: Database
  ) throws {
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, text, sent_at, state,
                            outbox_position, kind, target, restore_text)
      VALUES (?, ?, ?, ?, ?, 0, \(OutboxRows.nextPosition), ?, ?, ?)
      """, conversation.rawValue, id.rawValue, sender.rawValue, text, now.timeIntervalSince1970,
      kind.rawValue, target.rawValue, previous)
  }

  /// The server refused my queued edit or delete (`row`): the message goes back to what the
  /// server holds. For an edit, to the text it had before the edit, unless the server's own
  /// state replaced it meanwhile (a server edit cleared the local mark); a later edit of mine
  /// still queued takes over what to restore instead (an edit: my reactions and pins of it
  /// queued behind carry its ID too, and restore nothing). A delete erased the text at once and
  /// kept nothing to restore (`refetchRefusedDelete`). Returns true when the conversation must
  /// catch up to get the message back.
  static func undoRefused(
    _ row: MessageRecord, restoring previous: String?, tx: StoreTransaction
  ) throws -> Bool {
    let db = tx.db
    if row.kind == .delete {
      return tx.knownBugs.contains(.keepRefusedDelete)
        ? false : try refetchRefusedDelete(row, db: db)
    }
    guard let target = row.target, let previous, row.kind == .edit else { return false }
    let conversation = row.conversationID.rawValue
    let sender = row.senderID.rawValue
    let later =
      try db.scalarInt(
        """
        SELECT count(*) FROM messages WHERE conversation_id = ? AND sender_id = ? AND target = ?
          AND kind = 'edit' AND sequence IS NULL AND state = 0
        """, conversation, sender, target.rawValue) ?? 0
    if later > 0 {
      try db.run(
        """
        UPDATE messages SET restore_text = ? WHERE conversation_id = ? AND sender_id = ?
          AND target = ? AND kind = 'edit' AND sequence IS NULL AND state = 0
          AND restore_text = ?
        """, previous, conversation, sender, target.rawValue, row.text)
      return false
    }
    try db.run(
      """
      UPDATE messages SET text = ?, pending_edited_at = NULL
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND pending_edited_at IS NOT NULL AND deleted = 0
      """, previous, conversation, sender, target.rawValue)
    return false
  }

  /// A refused delete of mine: its tombstone and the rows of its edits (their texts erased
  /// too) go, and the sync position moves back below the message, so the next catch-up serves
  /// it again as the server has it, with its current text. Durable: a restart before that
  /// catch-up still finds the hole. Not when the server deleted the message meanwhile (its
  /// delete item is held: the tombstone is right). A message the server never accepted (its
  /// own post was refused too) simply goes: there is nothing of it anywhere to show.
  private static func refetchRefusedDelete(_ row: MessageRecord, db: Database) throws -> Bool {
    guard let target = row.target?.rawValue else { return false }
    let conversation = row.conversationID.rawValue
    let sender = row.senderID.rawValue
    let deletedByServer =
      try db.scalarInt(
        """
        SELECT count(*) FROM messages WHERE conversation_id = ? AND sender_id = ? AND target = ?
          AND kind = 'delete' AND sequence IS NOT NULL
        """, conversation, sender, target) ?? 0
    guard deletedByServer == 0 else { return false }
    let sequence = try db.query(
      """
      DELETE FROM messages WHERE conversation_id = ? AND sender_id = ?
        AND ((client_id = ? AND kind = 'message') OR (target = ? AND kind = 'edit'
          AND sequence IS NOT NULL))
      RETURNING kind, sequence
      """, conversation, sender, target, target
    ) { $0.string(0) == "message" ? $0.optionalInt(1) : nil }.compactMap { $0 }.first
    guard let sequence else { return false }
    try db.run(
      "UPDATE conversations SET synced_up_to = min(synced_up_to, ?) WHERE id = ?",
      sequence - 1, conversation)
    return true
  }
}
