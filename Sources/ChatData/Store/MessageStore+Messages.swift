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
