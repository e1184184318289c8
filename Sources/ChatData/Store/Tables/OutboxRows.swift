import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// A row of the outbox as the user sees it, as the store holds it.
struct OutboxRow: Sendable, Equatable {
  var record: MessageRecord
  var conversationTitle: String
  var attempts: Int
  var nextAttemptAt: Date?
  var lastError: String?
  var mediaBytesLeft: Int?
}

/// The outbox: my rows of `messages` not on the server yet, and their rules. Queued ones have
/// an `outbox_position` (the order they go out in; the partial index `messages_outbox` holds
/// them, so no query here walks the messages); held (stale) and refused ones wait for the
/// user. The sender that posts them is `Outbox`.
///
/// States (`MessageRecord.State`): sending (queued) → sent (the server's copy saved by ID,
/// `MessagesTable.saveServerMessages`), failed (refused, `markFailed`) or stale (held,
/// `startPosting`); failed and stale go back to sending with `requeue`.
enum OutboxRows {
  /// The rows the outbox still has to post.
  static let queued = "outbox_position IS NOT NULL AND state = 0 AND sequence IS NULL"

  /// The outbox position after the last queued row. The `WHERE` lets SQLite read it from the
  /// end of the partial index `messages_outbox`; without it, `max()` scans every message
  /// (14 ms at 200,000 rows, on every send).
  static let nextPosition =
    "(SELECT coalesce(max(outbox_position), 0) + 1 FROM messages WHERE outbox_position IS NOT NULL)"

  /// The conversations with queued rows, oldest queued row first. `INDEXED BY`: left to
  /// itself, SQLite walks `messages_by_sequence` (every message) to avoid sorting the groups.
  static let queuedConversations = """
    SELECT conversation_id FROM messages INDEXED BY messages_outbox
    WHERE \(queued)
    GROUP BY conversation_id ORDER BY min(outbox_position)
    """

  /// Saves a message I wrote, as sending, at the back of the outbox. This is the "save first" of
  /// sending: it is on screen before any network. Saved only in a conversation I am still a
  /// member of: otherwise the answer says where I stand (nil: no such conversation here).
  static func insertPending(_ message: MessageRecord, queuedAt: Double, tx: StoreTransaction)
    throws -> Participation?
  {
    let db = tx.db
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, text, sent_at, state,
                            outbox_position, media, media_file, media_viewed, queued_elapsed,
                            reply_to, forward_of, upload_done)
      SELECT ?, ?, ?, ?, ?, 0, \(nextPosition), ?, ?, ?, ?, ?, ?, ?
      WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ? AND membership = 'member')
      """, message.conversationID.rawValue, message.clientID.rawValue,
      message.senderID.rawValue, message.text, message.sentAt.timeIntervalSince1970,
      message.media.map(MessagesTable.stored(media:)), message.mediaFile,
      message.mediaFile == nil ? nil : message.sentAt.timeIntervalSince1970, queuedAt,
      message.replyTo?.rawValue, message.forwardOf,
      // A forward's media is uploaded already: the server copies it by its key.
      message.forwardOf == nil ? 0 : 1, message.conversationID.rawValue)
    guard db.changes == 1 else {
      return try db.query(
        "SELECT membership FROM conversations WHERE id = ?", message.conversationID.rawValue
      ) { Participation(rawValue: $0.string(0)) ?? .member }.first
    }
    tx.touch(message.conversationID)
    return .member
  }

  /// The outbox: my unsent rows, in the order they go out (oldest first; a tapped retry at the
  /// back).
  static func unsent(db: Database) throws -> [MessageRecord] {
    try db.query(
      """
      SELECT \(MessagesTable.columns) FROM messages
      WHERE \(queued)
      ORDER BY outbox_position
      """
    ) { MessagesTable.record($0) }.compactMap { $0 }
  }

  /// The next row the outbox posts in `conversation` (the newest with `newestFirst`, a known
  /// bug), marked as started in the same write: its body is kept in `posted_text` from now on
  /// and the returned record's text is that body, for this post and every retry. A local edit
  /// is therefore either written before it (and posted with it) or after it (and queued).
  /// `isFirst`: no earlier post of it started (so none can have reached the server).
  static func startPosting(
    in conversation: ConversationID, newestFirst: Bool, staleBefore: Double?,
    tx: StoreTransaction
  ) throws -> (record: MessageRecord, isFirst: Bool)? {
    let db = tx.db
    while true {
      guard
        let (rowID, isFirst, isStale, waitsForForward) = try db.query(
          """
          SELECT id, posted_text IS NULL, kind = 'message' AND queued_elapsed < ?,
            kind = 'delete' AND posted_text IS NULL AND EXISTS (SELECT 1 FROM messages AS f
              INDEXED BY messages_outbox
              WHERE f.forward_of = m.conversation_id || '/' || m.target
                AND f.outbox_position IS NOT NULL AND f.state = 0 AND f.sequence IS NULL)
          FROM messages AS m
          WHERE \(queued) AND conversation_id = ?
          ORDER BY outbox_position \(newestFirst ? "DESC" : "ASC") LIMIT 1
          """, staleBefore, conversation.rawValue,
          map: { ($0.int(0), $0.int(1) != 0, $0.int(2) != 0, $0.int(3) != 0) }
        ).first
      else { return nil }
      // My delete of a message I forwarded waits for the forward, queued in another
      // conversation: posted first, it would make the server refuse the forward (its source
      // deleted), and the forward would be lost. The forward's answer wakes this queue.
      if waitsForForward { return nil }
      // The stale-send rule: a message that waited too long is held for the user's choice,
      // and the next row is looked at. A post may have started (and reached the server,
      // its reply lost): the row keeps that body, so "send now" retries the same post.
      if isStale {
        try db.run(
          "UPDATE messages SET state = 3, outbox_position = NULL WHERE id = ?", rowID)
        tx.touch(conversation)
        continue
      }
      guard
        let record = try db.query(
          """
          UPDATE messages SET posted_text = coalesce(posted_text, text) WHERE id = ?
          RETURNING \(MessagesTable.columns), posted_text, emoji, reaction_remove
          """, rowID,
          map: { row in
            MessagesTable.record(row).map { record in
              var record = record
              let next = MessagesTable.columnCount
              record.text = row.string(next)
              record.emoji = row.optionalString(next + 1)
              record.reactionRemove = row.int(next + 2) != 0
              return record
            }
          }
        ).first ?? nil
      else { return nil }
      return (record, isFirst)
    }
  }

  /// A post of `id` that did not end in an answer to save: one more attempt, its reason
  /// (`RequestFailure.label`: no server text), and when the next is due (nil: when the
  /// network or the next start allows). For the outbox as the user sees it.
  static func recordFailedAttempt(
    _ id: MessageID, sender: UserID, reason: String, nextAttemptAt: Date?, tx: StoreTransaction
  ) throws {
    let conversations = try tx.db.query(
      """
      UPDATE messages SET send_attempts = send_attempts + 1, last_error = ?,
        next_attempt_at = ?
      WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
      RETURNING conversation_id
      """, reason, nextAttemptAt?.timeIntervalSince1970, id.rawValue, sender.rawValue
    ) { $0.string(0) }
    tx.touch(conversations)
  }

  /// A first post that certainly never reached the server (`TransportError.unreachable`): the
  /// row counts as never posted again, so a local edit changes it in place. Unless a local
  /// change was made meanwhile (its text moved on, or an edit or delete of it is queued): the
  /// row then keeps the body it was posted with, and the change stays queued behind it.
  static func forgetPostStart(_ id: MessageID, sender: UserID, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      UPDATE messages SET posted_text = NULL
      WHERE client_id = ? AND sender_id = ? AND sequence IS NULL AND state = 0
        AND posted_text = text
        AND NOT EXISTS (SELECT 1 FROM messages AS change
          WHERE change.conversation_id = messages.conversation_id
            AND change.sender_id = messages.sender_id AND change.target = messages.client_id)
      """, id.rawValue, sender.rawValue)
  }

  /// The conversations with rows in the outbox, the one whose next row was written first
  /// first.
  static func conversationsWithUnsent(db: Database) throws -> [ConversationID] {
    try db.query(queuedConversations) { ConversationID(rawValue: $0.string(0)) }
      .compactMap { $0 }
  }

  static func count(db: Database) throws -> Int {
    try db.scalarInt(
      """
      SELECT count(*) FROM messages
      WHERE \(queued)
      """) ?? 0
  }

  /// The server refused my message (a 4xx): only this one turns failed; it leaves the queue.
  /// The server holds nothing under its ID, so its text may change in place again. A refused
  /// edit or delete of mine puts its message back as the server has it
  /// (`MessagesTable.undoRefused`). Returns the conversation that must catch up for that, if
  /// any.
  static func markFailed(_ id: MessageID, sender: UserID, reason: String, tx: StoreTransaction)
    throws -> ConversationID?
  {
    let db = tx.db
    let refused = try db.query(
      """
      SELECT \(MessagesTable.columns), restore_text FROM messages
      WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
      """, id.rawValue, sender.rawValue
    ) { row in
      MessagesTable.record(row).map { ($0, row.optionalString(MessagesTable.columnCount)) }
    }
    try db.run(
      """
      UPDATE messages SET state = 2, failure = ?, outbox_position = NULL, posted_text = NULL,
        restore_text = NULL, media = CASE WHEN deleted = 1 THEN NULL ELSE media END
      WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
      """, reason, id.rawValue, sender.rawValue)
    var catchUp: ConversationID?
    for case (let row, let previous)? in refused {
      if try MessagesTable.undoRefused(row, restoring: previous, tx: tx) {
        catchUp = row.conversationID
      }
      tx.touch(row.conversationID)
    }
    return catchUp
  }

  /// A tapped retry: a failed (or stale) message goes back to sending, at the back of the
  /// queue, with the same ID, its age counted from `queuedAt` (the user asked for it now).
  /// Returns false when the message is neither (already sent, or still queued).
  /// A delete sent again erases its message at once, as when it was first made. A message with
  /// media uploads again from the start (the upload may be what the server refused, or swept:
  /// unused for a day), except a stale one whose post had started: it keeps its upload, as it
  /// keeps that post's body, since the post may have reached the server, and sent again with
  /// another upload's key it is a 409.
  static func requeue(_ id: MessageID, sender: UserID, queuedAt: Double, tx: StoreTransaction)
    throws -> Bool
  {
    // SET's expressions all read the row as it was; a refused row's post mark is gone
    // (`markFailed`), so only a stale one may keep it. A forward uploads nothing: its media
    // (the source's key) stays as it is.
    let keep = "(posted_text IS NOT NULL OR forward_of IS NOT NULL)"
    let rows = try tx.db.query(
      """
      UPDATE messages SET state = 0, failure = NULL,
        outbox_position = \(nextPosition),
        upload_key = CASE WHEN \(keep) THEN upload_key END,
        upload_sent = CASE WHEN \(keep) THEN upload_sent ELSE 0 END,
        upload_done = CASE WHEN \(keep) THEN upload_done ELSE 0 END,
        media = CASE WHEN media IS NULL OR \(keep) THEN media
          ELSE json_set(media, '$.key', '') END,
        queued_elapsed = ?, send_attempts = 0, last_error = NULL, next_attempt_at = NULL
      WHERE client_id = ? AND sender_id = ? AND state IN (2, 3) AND sequence IS NULL
      RETURNING conversation_id, kind, target
      """, queuedAt, id.rawValue, sender.rawValue
    ) { ($0.string(0), $0.string(1), $0.optionalString(2)) }
    for (conversation, kind, target) in rows {
      if kind == MessageRecord.Kind.delete.rawValue, let target {
        _ = try MessagesTable.erase(conversation, sender.rawValue, target, served: false, tx: tx)
      }
      tx.touch([conversation])
    }
    return !rows.isEmpty
  }

  /// The outbox as the user sees it: `sender`'s rows not on the server, queued ones in the
  /// order they go out, then held and refused ones (through `messages_unsent`: no scan of the
  /// messages).
  static func shown(sender: UserID, db: Database) throws -> [OutboxRow] {
    try db.query(
      """
      SELECT \(MessagesTable.columnsOfM), coalesce(c.title, ''), m.send_attempts,
        m.next_attempt_at, m.last_error,
        CASE WHEN m.media IS NOT NULL AND m.upload_done = 0
          THEN json_extract(m.media, '$.byteCount') - m.upload_sent END,
        m.emoji, m.reaction_remove
      FROM messages m INDEXED BY messages_unsent
      LEFT JOIN conversations c ON c.id = m.conversation_id
      WHERE m.sequence IS NULL AND m.sender_id = ?
        AND (m.outbox_position IS NOT NULL OR m.state IN (2, 3))
      ORDER BY m.outbox_position IS NULL, m.outbox_position, m.id
      """, sender.rawValue
    ) { row -> OutboxRow? in
      guard var record = MessagesTable.record(row) else { return nil }
      let next = MessagesTable.columnCount
      record.emoji = row.optionalString(next + 5)
      record.reactionRemove = row.int(next + 6) != 0
      return OutboxRow(
        record: record, conversationTitle: row.string(next), attempts: row.int(next + 1),
        nextAttemptAt: row.isNull(next + 2)
          ? nil : Date(timeIntervalSince1970: row.double(next + 2)),
        lastError: row.optionalString(next + 3), mediaBytesLeft: row.optionalInt(next + 4))
    }.compactMap { $0 }
  }
}
