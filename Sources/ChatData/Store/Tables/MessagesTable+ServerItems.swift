import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// The server's items in `messages` (API.md Part 2, "Items"): saved by ID, in sequence order,
/// each applied to what it concerns.
extension MessagesTable {
  /// Saves messages from the server (a page, a socket event, the reply to my post) by ID, raises
  /// the conversation's numbers, and moves its sync position over every message now held in a
  /// row. My own messages raise my read number, as the server does when I post.
  ///
  /// A batch that changes no row (the socket's echo of my message after the post's reply
  /// saved it, a page fetched twice) writes nothing and tells no observer: every row it holds
  /// already raised the conversation's numbers when it was saved.
  static func saveServerMessages(
    _ messages: [MessageRecord], in conversation: ConversationID, me: UserID,
    tx: StoreTransaction
  ) throws -> SaveOutcome {
    let db = tx.db
    var newest = 0
    var mineNewest = 0
    var clashes = 0
    var changed = 0
    // A message shows its reactions as served until a reaction item is held for it; folding
    // is needed only where this conversation holds some (one probe of `messages_reactions` a
    // batch, not two queries a message: a catch-up's ingest is B1).
    let heldReactions =
      try db.scalarInt(
        "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ? AND kind = 'reaction')",
        conversation.rawValue) ?? 0
    let holdsReactions = heldReactions != 0 || messages.contains { $0.kind == .reaction }
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
      changed += try apply(message, me: me, foldingReactions: holdsReactions, tx: tx)
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
    tx.touch(conversation)
    var outcome = try advanceSyncPosition(conversation, db: db)
    outcome.clashes = clashes
    return outcome
  }

  /// Inserts a server item, or turns the row with the same ID into it; a row that already is
  /// exactly it is left alone (no change counted). Throws a constraint error when a different
  /// row already holds the sequence. An edit or delete is stored as a row of its own (its
  /// sequence keeps the log dense); what it does to its message is `apply`'s. My forward,
  /// acknowledged, takes the server's text: the server copied its source as it was then, which
  /// may be before (or after) an edit of the source this device showed (simulation seed 10).
  private static func upsert(_ message: MessageRecord, db: Database) throws {
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, server_id, text,
                                      sequence, sent_at, state, kind, target, edited_at, deleted,
                                      added, removed, item_title, media, reactions_served,
                                      reactions, emoji, reaction_remove, reply_to, quote,
                                      mentions, forward_of)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (conversation_id, sender_id, client_id) DO UPDATE SET
        server_id = excluded.server_id, sequence = excluded.sequence,
        sent_at = excluded.sent_at, state = 1, failure = NULL, outbox_position = NULL,
        posted_text = NULL, restore_text = NULL,
        text = CASE WHEN messages.forward_of != '' AND messages.sequence IS NULL
            AND messages.pending_edited_at IS NULL AND messages.deleted = 0
          THEN excluded.text ELSE messages.text END,
        media = CASE WHEN messages.deleted = 1 THEN NULL
          ELSE coalesce(excluded.media, messages.media) END,
        reactions_served = coalesce(excluded.reactions_served, messages.reactions_served),
        reactions = CASE WHEN excluded.reactions_served IS NULL THEN messages.reactions
          ELSE excluded.reactions END,
        reply_to = coalesce(excluded.reply_to, messages.reply_to),
        quote = coalesce(excluded.quote, messages.quote),
        forward_of = coalesce(excluded.forward_of, messages.forward_of),
        mentions = CASE WHEN excluded.reactions_served IS NULL THEN messages.mentions
          ELSE excluded.mentions END
      WHERE messages.sequence IS NULL
        OR (messages.sequence = excluded.sequence
          AND (messages.state != 1 OR messages.server_id IS NOT excluded.server_id
            OR messages.sent_at != excluded.sent_at OR messages.failure IS NOT NULL
            OR messages.outbox_position IS NOT NULL
            OR (excluded.reactions_served IS NOT NULL
              AND (messages.reactions_served IS NOT excluded.reactions_served
                OR messages.quote IS NOT excluded.quote
                OR messages.mentions IS NOT excluded.mentions))))
      """, message.conversationID.rawValue, message.clientID.rawValue,
      message.senderID.rawValue, message.serverID, message.kind == .delete ? "" : message.text,
      message.sequence, message.sentAt.timeIntervalSince1970, message.kind.rawValue,
      message.target?.rawValue, message.editedAt?.timeIntervalSince1970,
      message.isDeleted ? 1 : 0,
      message.kind == .members ? message.added.map(\.rawValue).joined(separator: ",") : nil,
      message.kind == .members ? message.removed.map(\.rawValue).joined(separator: ",") : nil,
      message.title, message.isDeleted ? nil : message.media.map(Self.stored(media:)),
      message.servedReactions.map { Self.stored(reactions: $0) ?? "[]" },
      message.servedReactions.flatMap { Self.stored(reactions: $0) }, message.emoji,
      message.reactionRemove ? 1 : 0, message.replyTo?.rawValue,
      message.quote.map(Self.stored(quote:)), Self.stored(users: message.mentions),
      message.forwardOf)
  }

  /// Applies an item to the message it concerns (API.md Part 2): a message served in a newer
  /// state (edited later, or deleted) takes it; an edit replaces its message's text unless the
  /// message holds a later edit; a delete erases the text of the message and of its edits. A
  /// change can arrive before its message (out of order on the socket), so a message also
  /// takes the changes already held for it. Returns the rows changed. (What a change erases
  /// leaves the search indexes' pages in a pass of `MessageStore+Erasure.swift`.)
  private static func apply(
    _ item: MessageRecord, me: UserID, foldingReactions: Bool, tx: StoreTransaction
  ) throws -> Int {
    let db = tx.db
    let conversation = item.conversationID.rawValue
    let sender = item.senderID.rawValue
    switch item.kind {
    case .message:
      let id = item.clientID.rawValue
      if let target = item.replyTo, case .shown? = item.quote {
        try requoteReplies(to: target.rawValue, in: conversation, onlyRow: id, tx: tx)
      }
      var changes =
        foldingReactions
        ? try foldReactions(of: item.clientID, in: item.conversationID, tx: tx) : 0
      if let editedAt = item.editedAt, !item.isDeleted {
        changes += try edit(conversation, sender, id, to: item.text, at: editedAt, tx: tx)
      }
      // The newest change held for it, a delete first: one lookup in messages_by_target. An
      // edit of mine still queued is not the server's yet (its time is this device's); my
      // queued delete is final here already (a refused one is not: `undoRefused`).
      let held = try db.query(
        """
        SELECT kind, text, sent_at, sequence IS NOT NULL FROM messages
        WHERE conversation_id = ? AND sender_id = ? AND target = ? AND kind IN ('edit', 'delete')
          AND (sequence IS NOT NULL OR (kind = 'delete' AND state = 0))
        ORDER BY kind = 'delete' DESC, sequence DESC LIMIT 1
        """, conversation, sender, id
      ) {
        (
          $0.string(0), $0.string(1), Date(timeIntervalSince1970: $0.double(2)),
          $0.int(3) != 0
        )
      }.first
      if item.isDeleted || held?.0 == "delete" {
        // My queued delete is not the server's yet: it may still be refused (seed 949).
        let served = item.isDeleted || held?.3 == true
        return changes + (try erase(conversation, sender, id, served: served, tx: tx))
      }
      if let (_, text, at, _) = held {
        changes += try edit(conversation, sender, id, to: text, at: at, tx: tx)
      }
      return changes
    case .edit:
      guard let target = item.target?.rawValue else { return 0 }
      let changes = try edit(conversation, sender, target, to: item.text, at: item.sentAt, tx: tx)
      if changes > 0 { try markMentionsUnknown(conversation, sender, target, db: db) }
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
      return try erase(conversation, sender, target, tx: tx)
    case .reaction:
      guard let target = item.target else { return 0 }
      return try foldReactions(of: target, in: item.conversationID, tx: tx)
    case .pin:
      try foldPins(of: item.conversationID, tx: tx)
      return 0
    case .members:
      return try applyMembers(item, me: me, tx: tx)
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
  private static func applyMembers(_ item: MessageRecord, me: UserID, tx: StoreTransaction)
    throws -> Int
  {
    let db = tx.db
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
    if item.removed.contains(me), !tx.knownBugs.contains(.ignoreMyRemoval) {
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
  private static func edit(
    _ conversation: String, _ sender: String, _ id: String, to text: String, at: Date,
    tx: StoreTransaction
  ) throws -> Int {
    let db = tx.db
    try db.run(
      """
      UPDATE messages SET text = ?, edited_at = ?, pending_edited_at = NULL
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND deleted = 0 AND (edited_at IS NULL OR edited_at < ?)
      """, text, at.timeIntervalSince1970, conversation, sender, id, at.timeIntervalSince1970)
    let changes = db.changes
    if changes > 0 { try requoteReplies(to: id, in: conversation, tx: tx) }
    return changes
  }

  /// Makes a message a tombstone and erases its text and its edits' (the search index follows
  /// through its trigger), and its media's bytes. Returns the rows changed.
  ///
  /// My message whose post started after its upload completed keeps its media's description
  /// (key, size, thumbnail), as it keeps `posted_text`, until the server answers: that post
  /// may have reached the server, and sent again without its media it is a 409 (simulation
  /// seed 753 of `--retain-messages 5 --stale-after 45`). A tombstone shows no media, and the
  /// server's answer drops it (`upsert`).
  /// `served`: the server's delete (not my own one, shown before the server took it): my
  /// unsent forwards of the message go too.
  static func erase(
    _ conversation: String, _ sender: String, _ id: String, served: Bool = true,
    tx: StoreTransaction
  ) throws -> Int {
    let db = tx.db
    let postedMedia = "sequence IS NULL AND posted_text IS NOT NULL AND upload_done = 1"
    let kept =
      tx.knownBugs.contains(.deleteKeepsSearchIndex)
      ? try db.query(
        """
        SELECT id, text FROM messages WHERE conversation_id = ? AND sender_id = ?
          AND client_id = ? AND kind = 'message' AND text != ''
        """, conversation, sender, id
      ) { ($0.int(0), $0.string(1)) } : []
    try db.run(
      """
      UPDATE messages SET text = '', deleted = 1, media_file = NULL,
        media = CASE WHEN \(postedMedia) THEN media END, reactions = NULL,
        reactions_served = NULL
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND (deleted = 0 OR text != '' OR media_file IS NOT NULL OR reactions IS NOT NULL
          OR (media IS NOT NULL AND NOT (\(postedMedia))))
      """, conversation, sender, id)
    var changes = db.changes
    if changes > 0 { tx.releaseMedia() }
    try db.run(
      """
      UPDATE messages SET text = '', restore_text = NULL
      WHERE conversation_id = ? AND sender_id = ? AND target = ? AND kind = 'edit'
        AND (text != '' OR restore_text IS NOT NULL)
      """, conversation, sender, id)
    changes += db.changes
    // My forwards of it that never reached the server go too (API.md Part 3): each holds a
    // copy of its text, and none can be sent any more (the server refuses a forward of a
    // deleted message; one it accepted before comes back with its answer). Simulation seed 54.
    // Not for my own delete until the server took it: refused, the message lives on (seed 10).
    if served {
      let dropped = try db.query(
        """
        DELETE FROM messages WHERE forward_of = ? AND sequence IS NULL AND kind = 'message'
        RETURNING conversation_id, client_id
        """, "\(conversation)/\(id)"
      ) { ($0.string(0), $0.string(1)) }
      for (conversation, forward) in dropped {
        try dropQueuedChanges(of: forward, in: conversation, db: db)
      }
      if !dropped.isEmpty {
        changes += dropped.count
        tx.touch(dropped.map(\.0))
        tx.releaseMedia()
      }
    }
    for (row, text) in kept {
      try db.run("INSERT INTO message_search (rowid, text) VALUES (?, ?)", row, text)
    }
    return changes + (try requoteReplies(to: id, in: conversation, tx: tx))
  }

  /// My queued edits, deletes, reactions and pins of a message of mine dropped before it was
  /// ever sent (a forward whose source went): they go with it, or each would be refused and
  /// show failed for a message that is not there.
  static func dropQueuedChanges(of message: String, in conversation: String, db: Database)
    throws
  {
    try db.run(
      "DELETE FROM messages WHERE conversation_id = ? AND target = ? AND sequence IS NULL",
      conversation, message)
  }
}
