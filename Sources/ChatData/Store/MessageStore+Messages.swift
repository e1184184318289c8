import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// What saving a batch of the server's messages changed in a conversation's sync position.
struct SaveOutcome: Sendable, Equatable {
  /// Every message up to here (from the history floor) is held; nil when never fetched.
  var syncedUpTo: Int?
  /// A held or announced message lies above `syncedUpTo`: there is a gap to fill with `?after=`.
  var hasGap: Bool
  /// Messages of this save dropped because another row held their sequence (see
  /// `saveServerMessages`).
  var clashes = 0
}

extension MessageStore {
  /// The rows the outbox still has to post.
  static let inOutbox = "outbox_position IS NOT NULL AND state = 0 AND sequence IS NULL"

  /// The outbox position after the last queued row. The `WHERE` lets SQLite read it from the
  /// end of the partial index `messages_outbox`; without it, `max()` scans every message
  /// (14 ms at 200,000 rows, on every send).
  static let nextOutboxPosition =
    "(SELECT coalesce(max(outbox_position), 0) + 1 FROM messages WHERE outbox_position IS NOT NULL)"

  /// The conversations with queued rows, oldest queued row first. `INDEXED BY`: left to
  /// itself, SQLite walks `messages_by_sequence` (every message) to avoid sorting the groups.
  static let conversationsInOutbox = """
    SELECT conversation_id FROM messages INDEXED BY messages_outbox
    WHERE \(inOutbox)
    GROUP BY conversation_id ORDER BY min(outbox_position)
    """

  static let messageColumns =
    """
    conversation_id, client_id, sender_id, server_id, text, sequence, sent_at, state, failure, \
    kind, target, edited_at, deleted, pending_edited_at, added, removed, item_title, media, \
    media_file, upload_sent, upload_done
    """

  /// How many columns `messageColumns` names (what a query selects after them starts here).
  static let messageColumnCount = messageColumns.split(separator: ",").count

  /// Maps a row selected with `messageColumns`; nil for a row this version cannot read.
  /// `conversation`: the one a query's `conversation_id = ?` already names, so its column is
  /// neither read nor checked again for each row.
  static func messageRecord(
    _ row: Row, offset: Int = 0, in conversation: ConversationID? = nil
  ) -> MessageRecord? {
    guard let conversation = conversation ?? ConversationID(rawValue: row.string(offset)),
      let clientID = MessageID(rawValue: row.string(offset + 1)),
      let sender = UserID(rawValue: row.string(offset + 2)),
      let state = MessageRecord.State(rawValue: row.int(offset + 7))
    else { return nil }
    return MessageRecord(
      conversationID: conversation, clientID: clientID, senderID: sender,
      serverID: row.optionalString(offset + 3), text: row.string(offset + 4),
      sequence: row.optionalInt(offset + 5),
      sentAt: Date(timeIntervalSince1970: row.double(offset + 6)), state: state,
      failure: row.optionalString(offset + 8),
      kind: kind(row.string(offset + 9)),
      target: row.optionalString(offset + 10).flatMap(MessageID.init(rawValue:)),
      editedAt: row.isNull(offset + 11)
        ? nil : Date(timeIntervalSince1970: row.double(offset + 11)),
      isDeleted: row.int(offset + 12) != 0,
      pendingEditedAt: row.isNull(offset + 13)
        ? nil : Date(timeIntervalSince1970: row.double(offset + 13)),
      added: users(row.optionalString(offset + 14)),
      removed: users(row.optionalString(offset + 15)), title: row.optionalString(offset + 16),
      media: row.optionalString(offset + 17).flatMap(Self.media(stored:)),
      mediaFile: row.optionalString(offset + 18),
      uploadedBytes: row.isNull(offset + 17) || row.int(offset + 20) != 0
        ? nil : row.int(offset + 19))
  }

  /// A comma-separated list of user IDs (a members item's `added` or `removed`).
  private static func users(_ list: String?) -> [UserID] {
    guard let list, !list.isEmpty else { return [] }
    return list.split(separator: ",").compactMap { UserID(rawValue: String($0)) }
  }

  /// An item's kind; a message when unknown. Almost every row is one: that is tested first
  /// (a `switch` over the cases' strings showed in B2's profile).
  private static func kind(_ text: String) -> MessageRecord.Kind {
    text == "message" ? .message : MessageRecord.Kind(rawValue: text) ?? .message
  }

  // MARK: - Sending

  /// Saves a message I wrote, as sending, at the back of the outbox. This is the "save first" of
  /// sending: it is on screen before any network. Saved only in a conversation I am still a
  /// member of: otherwise the answer says where I stand (nil: no such conversation here).
  @discardableResult
  func insertPending(_ message: MessageRecord, queuedAt: Double) throws(StoreError)
    -> Participation?
  {
    try write { db in
      try db.run(
        """
        INSERT INTO messages (conversation_id, client_id, sender_id, text, sent_at, state,
                              outbox_position, media, media_file, media_viewed, queued_elapsed)
        SELECT ?, ?, ?, ?, ?, 0, \(Self.nextOutboxPosition), ?, ?, ?, ?
        WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ? AND membership = 'member')
        """, message.conversationID.rawValue, message.clientID.rawValue,
        message.senderID.rawValue, message.text, message.sentAt.timeIntervalSince1970,
        message.media.map(Self.stored(media:)), message.mediaFile,
        message.mediaFile == nil ? nil : message.sentAt.timeIntervalSince1970, queuedAt,
        message.conversationID.rawValue)
      guard db.changes == 1 else {
        return try db.query(
          "SELECT membership FROM conversations WHERE id = ?", message.conversationID.rawValue
        ) { Participation(rawValue: $0.string(0)) ?? .member }.first
      }
      touch(message.conversationID)
      return .member
    }
  }

  /// The outbox: my unsent rows, in the order they go out (oldest first; a tapped retry at the
  /// back).
  func unsent() throws(StoreError) -> [MessageRecord] {
    try read { db in
      try db.query(
        """
        SELECT \(Self.messageColumns) FROM messages
        WHERE \(Self.inOutbox)
        ORDER BY outbox_position
        """
      ) { Self.messageRecord($0) }.compactMap { $0 }
    }
  }

  /// The next row the outbox posts in `conversation` (the newest with `newestFirst`, a known
  /// bug), marked as started in the same write: its body is kept in `posted_text` from now on
  /// and the returned record's text is that body, for this post and every retry. A local edit
  /// is therefore either written before it (and posted with it) or after it (and queued).
  /// `isFirst`: no earlier post of it started (so none can have reached the server).
  func startPosting(
    in conversation: ConversationID, newestFirst: Bool = false, staleBefore: Double? = nil
  ) throws(StoreError) -> (record: MessageRecord, isFirst: Bool)? {
    try write { db in
      while true {
        guard
          let (rowID, isFirst, isStale) = try db.query(
            """
            SELECT id, posted_text IS NULL, kind = 'message' AND queued_elapsed < ?
            FROM messages
            WHERE \(Self.inOutbox) AND conversation_id = ?
            ORDER BY outbox_position \(newestFirst ? "DESC" : "ASC") LIMIT 1
            """, staleBefore, conversation.rawValue,
            map: { ($0.int(0), $0.int(1) != 0, $0.int(2) != 0) }
          ).first
        else { return nil }
        // The stale-send rule: a message that waited too long is held for the user's choice,
        // and the next row is looked at. A post may have started (and reached the server,
        // its reply lost): the row keeps that body, so "send now" retries the same post.
        if isStale {
          try db.run(
            "UPDATE messages SET state = 3, outbox_position = NULL WHERE id = ?", rowID)
          touch(conversation)
          continue
        }
        guard
          var record = try db.query(
            """
            UPDATE messages SET posted_text = coalesce(posted_text, text) WHERE id = ?
            RETURNING \(Self.messageColumns), posted_text
            """, rowID,
            map: { row in
              Self.messageRecord(row).map { ($0, row.string(Self.messageColumnCount)) }
            }
          ).first ?? nil
        else { return nil }
        record.0.text = record.1
        return (record.0, isFirst)
      }
    }
  }

  /// A post of `id` that did not end in an answer to save: one more attempt, its reason
  /// (`RequestFailure.label`: no server text), and when the next is due (nil: when the
  /// network or the next start allows). For the outbox as the user sees it.
  func recordFailedAttempt(
    _ id: MessageID, sender: UserID, reason: String, nextAttemptAt: Date?
  ) throws(StoreError) {
    try write { db in
      let rows = try db.query(
        """
        UPDATE messages SET send_attempts = send_attempts + 1, last_error = ?,
          next_attempt_at = ?
        WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
        RETURNING conversation_id
        """, reason, nextAttemptAt?.timeIntervalSince1970, id.rawValue, sender.rawValue
      ) { $0.string(0) }
      for conversation in rows {
        if let id = ConversationID(rawValue: conversation) { touch(id) }
      }
    }
  }

  /// A first post that certainly never reached the server (`TransportError.unreachable`): the
  /// row counts as never posted again, so a local edit changes it in place. Unless a local
  /// change was made meanwhile (its text moved on, or an edit or delete of it is queued): the
  /// row then keeps the body it was posted with, and the change stays queued behind it.
  func forgetPostStart(_ id: MessageID, sender: UserID) throws(StoreError) {
    try write { db in
      try db.run(
        """
        UPDATE messages SET posted_text = NULL
        WHERE client_id = ? AND sender_id = ? AND sequence IS NULL AND state = 0
          AND posted_text = text
          AND NOT EXISTS (SELECT 1 FROM messages AS change
            WHERE change.conversation_id = messages.conversation_id
              AND change.sender_id = messages.sender_id AND change.target = messages.client_id)
        """, id.rawValue, sender.rawValue)
    }
  }

  /// The conversations with rows in the outbox, the one whose next row was written first
  /// first.
  func conversationsWithUnsent() throws(StoreError) -> [ConversationID] {
    try read { db in
      try db.query(Self.conversationsInOutbox) { ConversationID(rawValue: $0.string(0)) }
        .compactMap { $0 }
    }
  }

  func outboxCount() throws(StoreError) -> Int {
    try read { db in
      try db.scalarInt(
        """
        SELECT count(*) FROM messages
        WHERE \(Self.inOutbox)
        """) ?? 0
    }
  }

  /// My message with this ID, in any conversation.
  func message(_ id: MessageID, sender: UserID) throws(StoreError) -> MessageRecord? {
    try read { db in
      try db.query(
        "SELECT \(Self.messageColumns) FROM messages WHERE client_id = ? AND sender_id = ?",
        id.rawValue, sender.rawValue
      ) { Self.messageRecord($0) }.first ?? nil
    }
  }

  /// The server refused my message (a 4xx): only this one turns failed; it leaves the queue.
  /// The server holds nothing under its ID, so its text may change in place again. A refused
  /// edit or delete of mine puts its message back as the server has it (`undoRefused`).
  /// Returns the conversation that must catch up for that, if any.
  @discardableResult
  func markFailed(_ id: MessageID, sender: UserID, reason: String) throws(StoreError)
    -> ConversationID?
  {
    try write { db in
      let refused = try db.query(
        """
        SELECT \(Self.messageColumns), restore_text FROM messages
        WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
        """, id.rawValue, sender.rawValue
      ) { row in Self.messageRecord(row).map { ($0, row.optionalString(Self.messageColumnCount)) } }
      try db.run(
        """
        UPDATE messages SET state = 2, failure = ?, outbox_position = NULL, posted_text = NULL,
          restore_text = NULL, media = CASE WHEN deleted = 1 THEN NULL ELSE media END
        WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
        """, reason, id.rawValue, sender.rawValue)
      var catchUp: ConversationID?
      for case (let row, let previous)? in refused {
        if try undoRefused(row, restoring: previous, db: db) { catchUp = row.conversationID }
        touch(row.conversationID)
      }
      return catchUp
    }
  }

  /// A tapped retry: a failed (or stale) message goes back to sending, at the back of the
  /// queue, with the same ID, its age counted from `queuedAt` (the user asked for it now).
  /// Returns false when the message is neither (already sent, or still queued).
  /// A delete sent again erases its message at once, as when it was first made. A message with
  /// media uploads again from the start (the upload may be what the server refused, or swept:
  /// unused for a day), except a stale one whose post had started: it keeps its upload, as it
  /// keeps that post's body, since the post may have reached the server, and sent again with
  /// another upload's key it is a 409.
  func requeue(_ id: MessageID, sender: UserID, queuedAt: Double) throws(StoreError) -> Bool {
    let requeued = try write { db in
      // SET's expressions all read the row as it was; a refused row's post mark is gone
      // (`markFailed`), so only a stale one may keep it.
      let keep = "posted_text IS NOT NULL"
      let rows = try db.query(
        """
        UPDATE messages SET state = 0, failure = NULL,
          outbox_position = \(Self.nextOutboxPosition),
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
          _ = try erase(conversation, sender.rawValue, target, db: db)
        }
        if let id = ConversationID(rawValue: conversation) { touch(id) }
      }
      return !rows.isEmpty
    }
    return requeued
  }

  // MARK: - Saving the server's messages

  /// Saves messages from the server (a page, a socket event, the reply to my post) by ID, raises
  /// the conversation's numbers, and moves its sync position over every message now held in a
  /// row. My own messages raise my read number, as the server does when I post.
  ///
  /// A batch that changes no row (the socket's echo of my message after the post's reply
  /// saved it, a page fetched twice) writes nothing and tells no observer: every row it holds
  /// already raised the conversation's numbers when it was saved.
  @discardableResult
  func saveServerMessages(
    _ messages: [MessageRecord], in conversation: ConversationID, me: UserID
  ) throws(StoreError) -> SaveOutcome {
    try write { db in
      var newest = 0
      var mineNewest = 0
      var clashes = 0
      var changed = 0
      // In sequence order, so a change applies after the message it changes when both come.
      for message in messages.sorted(by: { ($0.sequence ?? 0) < ($1.sequence ?? 0) }) {
        guard let sequence = message.sequence else { continue }
        do {
          try upsert(message, db: db)
          changed += db.changes
        } catch let error as SQLiteError where error.isConstraint {
          // Another row already holds this sequence: the server broke its promise of one
          // message per sequence. SQLite undid only this statement; the rest of the batch
          // is kept.
          clashes += 1
          continue
        }
        changed += try apply(message, me: me, db: db)
        newest = max(newest, sequence)
        if message.senderID == me { mineNewest = max(mineNewest, sequence) }
      }
      guard changed > 0 else {
        var outcome = try advanceSyncPosition(conversation, db: db)
        outcome.clashes = clashes
        return outcome
      }
      if newest > 0 {
        try db.run(
          """
          UPDATE conversations SET last_sequence = max(last_sequence, ?),
            read_up_to = max(read_up_to, ?), read_acknowledged = max(read_acknowledged, ?)
          WHERE id = ?
          """, newest, mineNewest, mineNewest, conversation.rawValue)
      }
      touch(conversation)
      var outcome = try advanceSyncPosition(conversation, db: db)
      outcome.clashes = clashes
      return outcome
    }
  }

  /// Inserts a server item, or turns the row with the same ID into it; a row that already is
  /// exactly it is left alone (no change counted). Throws a constraint error when a different
  /// row already holds the sequence. An edit or delete is stored as a row of its own (its
  /// sequence keeps the log dense); what it does to its message is `apply`'s.
  private func upsert(_ message: MessageRecord, db: Database) throws {
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, server_id, text,
                                      sequence, sent_at, state, kind, target, edited_at, deleted,
                                      added, removed, item_title, media)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (conversation_id, sender_id, client_id) DO UPDATE SET
        server_id = excluded.server_id, sequence = excluded.sequence,
        sent_at = excluded.sent_at, state = 1, failure = NULL, outbox_position = NULL,
        posted_text = NULL, restore_text = NULL,
        media = CASE WHEN messages.deleted = 1 THEN NULL
          ELSE coalesce(excluded.media, messages.media) END
      WHERE messages.sequence IS NULL
        OR (messages.sequence = excluded.sequence
          AND (messages.state != 1 OR messages.server_id IS NOT excluded.server_id
            OR messages.sent_at != excluded.sent_at OR messages.failure IS NOT NULL
            OR messages.outbox_position IS NOT NULL))
      """, message.conversationID.rawValue, message.clientID.rawValue,
      message.senderID.rawValue, message.serverID, message.kind == .delete ? "" : message.text,
      message.sequence, message.sentAt.timeIntervalSince1970, message.kind.rawValue,
      message.target?.rawValue, message.editedAt?.timeIntervalSince1970,
      message.isDeleted ? 1 : 0,
      message.kind == .members ? message.added.map(\.rawValue).joined(separator: ",") : nil,
      message.kind == .members ? message.removed.map(\.rawValue).joined(separator: ",") : nil,
      message.title, message.isDeleted ? nil : message.media.map(Self.stored(media:)))
  }

  /// Applies an item to the message it concerns (API.md Part 2): a message served in a newer
  /// state (edited later, or deleted) takes it; an edit replaces its message's text unless the
  /// message holds a later edit; a delete erases the text of the message and of its edits. A
  /// change can arrive before its message (out of order on the socket), so a message also
  /// takes the changes already held for it. Returns the rows changed. (What a change erases
  /// leaves the search indexes' pages in a pass of `MessageStore+Erasure.swift`.)
  private func apply(_ item: MessageRecord, me: UserID, db: Database) throws -> Int {
    let conversation = item.conversationID.rawValue
    let sender = item.senderID.rawValue
    switch item.kind {
    case .message:
      let id = item.clientID.rawValue
      var changes = 0
      if let editedAt = item.editedAt, !item.isDeleted {
        changes += try edit(conversation, sender, id, to: item.text, at: editedAt, db: db)
      }
      // The newest change held for it, a delete first: one lookup in messages_by_target. An
      // edit of mine still queued is not the server's yet (its time is this device's); my
      // queued delete is final here already (a refused one is not: `undoRefused`).
      let held = try db.query(
        """
        SELECT kind, text, sent_at FROM messages WHERE conversation_id = ? AND sender_id = ?
          AND target = ? AND kind IN ('edit', 'delete')
          AND (sequence IS NOT NULL OR (kind = 'delete' AND state = 0))
        ORDER BY kind = 'delete' DESC, sequence DESC LIMIT 1
        """, conversation, sender, id
      ) { ($0.string(0), $0.string(1), Date(timeIntervalSince1970: $0.double(2))) }.first
      if item.isDeleted || held?.0 == "delete" {
        return changes + (try erase(conversation, sender, id, db: db))
      }
      if let (_, text, at) = held {
        changes += try edit(conversation, sender, id, to: text, at: at, db: db)
      }
      return changes
    case .edit:
      guard let target = item.target?.rawValue else { return 0 }
      let changes = try edit(conversation, sender, target, to: item.text, at: item.sentAt, db: db)
      // The message is already a tombstone: the edit keeps no text either.
      try db.run(
        """
        UPDATE messages SET text = '' WHERE conversation_id = ? AND sender_id = ? AND client_id = ?
          AND text != '' AND EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?
            AND sender_id = ? AND client_id = ? AND deleted = 1)
        """, conversation, sender, item.clientID.rawValue, conversation, sender, target)
      return changes + db.changes
    case .delete:
      guard let target = item.target?.rawValue else { return 0 }
      return try erase(conversation, sender, target, db: db)
    case .members:
      return try applyMembers(item, me: me, db: db)
    case .title:
      guard let sequence = item.sequence, let title = item.title else { return 0 }
      try db.run(
        "UPDATE conversations SET title = ?, title_as_of = ? WHERE id = ? AND title_as_of < ?",
        title, sequence, conversation, sequence)
      return db.changes
    }
  }

  /// A members item changes the conversation's members, and, when it names me, where I stand
  /// and what I see: removed (or left, when I removed myself) up to it, added from it. Unless
  /// the conversation is already known in a state at or after it.
  private func applyMembers(_ item: MessageRecord, me: UserID, db: Database) throws -> Int {
    guard let sequence = item.sequence,
      let (members, asOf, participation, visible) = try db.query(
        "SELECT member_ids, members_as_of, membership, visible FROM conversations WHERE id = ?",
        item.conversationID.rawValue,
        map: { ($0.string(0), $0.int(1), $0.string(2), VisibleSequences(stored: $0.string(3))) }
      ).first,
      sequence > asOf
    else { return 0 }
    var current = Set(members.split(separator: ",").map(String.init))
    current.formUnion(item.added.map(\.rawValue))
    current.subtract(item.removed.map(\.rawValue))
    var standing = participation
    var seen = visible
    if item.removed.contains(me), !knownBugs.contains(.ignoreMyRemoval) {
      standing = item.senderID == me ? Participation.left.rawValue : Participation.removed.rawValue
      seen = visible.closed(at: sequence)
    } else if item.added.contains(me) {
      standing = Participation.member.rawValue
      seen = visible.opened(at: sequence)
    }
    try db.run(
      """
      UPDATE conversations SET member_ids = ?, members_as_of = ?, membership = ?, visible = ?
      WHERE id = ?
      """, current.sorted().joined(separator: ","), sequence, standing, seen.stored,
      item.conversationID.rawValue)
    return db.changes
  }

  /// Gives a message the text of an edit made at `at`, unless it is deleted or holds a later
  /// edit (the server's clock orders them). Returns the rows changed. A local edit not yet
  /// confirmed gives way: the server's edit shows until mine is accepted, later than it.
  private func edit(
    _ conversation: String, _ sender: String, _ id: String, to text: String, at: Date,
    db: Database
  ) throws -> Int {
    try db.run(
      """
      UPDATE messages SET text = ?, edited_at = ?, pending_edited_at = NULL
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND deleted = 0 AND (edited_at IS NULL OR edited_at < ?)
      """, text, at.timeIntervalSince1970, conversation, sender, id, at.timeIntervalSince1970)
    return db.changes
  }

  /// Makes a message a tombstone and erases its text and its edits' (the search index follows
  /// through its trigger), and its media's bytes. Returns the rows changed.
  ///
  /// My message whose post started after its upload completed keeps its media's description
  /// (key, size, thumbnail), as it keeps `posted_text`, until the server answers: that post
  /// may have reached the server, and sent again without its media it is a 409 (simulation
  /// seed 753 of `--retain-messages 5 --stale-after 45`). A tombstone shows no media, and the
  /// server's answer drops it (`upsert`).
  func erase(_ conversation: String, _ sender: String, _ id: String, db: Database)
    throws -> Int
  {
    let postedMedia = "sequence IS NULL AND posted_text IS NOT NULL AND upload_done = 1"
    let kept =
      knownBugs.contains(.deleteKeepsSearchIndex)
      ? try db.query(
        """
        SELECT id, text FROM messages WHERE conversation_id = ? AND sender_id = ?
          AND client_id = ? AND kind = 'message' AND text != ''
        """, conversation, sender, id
      ) { ($0.int(0), $0.string(1)) } : []
    try db.run(
      """
      UPDATE messages SET text = '', deleted = 1, media_file = NULL,
        media = CASE WHEN \(postedMedia) THEN media END
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND (deleted = 0 OR text != '' OR media_file IS NOT NULL
          OR (media IS NOT NULL AND NOT (\(postedMedia))))
      """, conversation, sender, id)
    var changes = db.changes
    if changes > 0 { releaseMedia() }
    try db.run(
      """
      UPDATE messages SET text = '', restore_text = NULL
      WHERE conversation_id = ? AND sender_id = ? AND target = ? AND kind = 'edit'
        AND (text != '' OR restore_text IS NOT NULL)
      """, conversation, sender, id)
    changes += db.changes
    for (row, text) in kept {
      try db.run("INSERT INTO message_search (rowid, text) VALUES (?, ?)", row, text)
    }
    return changes
  }

  /// Walks `synced_up_to` over the rows held just above it, within my visible ranges.
  private func advanceSyncPosition(_ conversation: ConversationID, db: Database) throws
    -> SaveOutcome
  {
    guard
      let (synced, lastSequence, visible) = try db.query(
        "SELECT synced_up_to, last_sequence, visible FROM conversations WHERE id = ?",
        conversation.rawValue,
        map: { ($0.optionalInt(0), $0.int(1), VisibleSequences(stored: $0.string(2))) }
      ).first
    else {
      return SaveOutcome(syncedUpTo: nil, hasGap: false)
    }
    guard var position = synced else {
      return SaveOutcome(syncedUpTo: nil, hasGap: false)
    }
    let above = try db.query(
      "SELECT sequence FROM messages WHERE conversation_id = ? AND sequence > ? ORDER BY sequence",
      conversation.rawValue, position
    ) { $0.int(0) }
    // Gaps are looked for within what I can see: a sequence written while I was not a
    // member is never served to me, so the walk steps over it.
    for sequence in above {
      guard sequence == visible.firstVisible(after: position) else { break }
      position = sequence
    }
    if position != synced {
      try db.run(
        "UPDATE conversations SET synced_up_to = ? WHERE id = ?", position,
        conversation.rawValue)
    }
    let newestKnown = max(lastSequence, above.last ?? 0)
    return SaveOutcome(syncedUpTo: position, hasGap: newestKnown > position)
  }

  /// Sets where this device's contiguous copy of a conversation starts and ends (after the first
  /// page, or after loading older history). Only widens it.
  func setSyncPosition(
    _ conversation: ConversationID, syncedUpTo: Int?, historyFloor: Int?
  ) throws(StoreError) -> SaveOutcome {
    try write { db in
      try db.run(
        """
        UPDATE conversations SET
          synced_up_to = CASE WHEN ? IS NULL THEN synced_up_to
                              ELSE max(coalesce(synced_up_to, 0), ?) END,
          history_floor = CASE WHEN ? IS NULL THEN history_floor
                               ELSE min(coalesce(history_floor, ?), ?) END
        WHERE id = ?
        """, syncedUpTo, syncedUpTo, historyFloor, historyFloor, historyFloor,
        conversation.rawValue)
      touch(conversation)
      return try advanceSyncPosition(conversation, db: db)
    }
  }

  /// The newest sequence held in a conversation (seed 000 §6.7).
  func newestSequence(in conversation: ConversationID) throws(StoreError) -> Int? {
    try read { db in
      try db.scalarInt(
        "SELECT max(sequence) FROM messages WHERE conversation_id = ?", conversation.rawValue)
    }
  }
}

/// A row of the outbox as the user sees it, as the store holds it.
struct OutboxRow: Sendable, Equatable {
  var record: MessageRecord
  var conversationTitle: String
  var attempts: Int
  var nextAttemptAt: Date?
  var lastError: String?
  var mediaBytesLeft: Int?
}

extension MessageStore {
  /// `sender`'s rows not on the server: queued ones in the order they go out, then held and
  /// refused ones (through `messages_unsent`: no scan of the messages).
  func outboxRows(sender: UserID) throws(StoreError) -> [OutboxRow] {
    try read { db in
      try db.query(
        """
        SELECT \(Self.messageColumnsOfM), coalesce(c.title, ''), m.send_attempts,
          m.next_attempt_at, m.last_error,
          CASE WHEN m.media IS NOT NULL AND m.upload_done = 0
            THEN json_extract(m.media, '$.byteCount') - m.upload_sent END
        FROM messages m INDEXED BY messages_unsent
        LEFT JOIN conversations c ON c.id = m.conversation_id
        WHERE m.sequence IS NULL AND m.sender_id = ?
          AND (m.outbox_position IS NOT NULL OR m.state IN (2, 3))
        ORDER BY m.outbox_position IS NULL, m.outbox_position, m.id
        """, sender.rawValue
      ) { row -> OutboxRow? in
        guard let record = Self.messageRecord(row) else { return nil }
        let next = Self.messageColumnCount
        return OutboxRow(
          record: record, conversationTitle: row.string(next), attempts: row.int(next + 1),
          nextAttemptAt: row.isNull(next + 2)
            ? nil : Date(timeIntervalSince1970: row.double(next + 2)),
          lastError: row.optionalString(next + 3), mediaBytesLeft: row.optionalInt(next + 4))
      }.compactMap { $0 }
    }
  }
}
