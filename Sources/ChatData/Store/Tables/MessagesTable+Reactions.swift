import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// Reactions in `messages` (API.md Part 3, "Reactions"): a message's `reactions` column is what
/// the screen shows, folded from what the server served and the reaction items held, mine not
/// yet sent included; my reactions wait in the outbox as rows of kind `reaction`.
extension MessagesTable {
  /// I add `emoji` to a message of the conversation (anyone's), or take it back (`remove`).
  /// Shown at once. When it is what the message already shows, nothing changes (`unchanged`).
  /// A reaction of mine on it with that emoji still queued and not posted yet is cancelled in
  /// place (`inPlace`: a toggle and its undo post nothing); otherwise the reaction item `id`
  /// waits in the outbox (`queued`), behind the message when that is unsent too.
  static func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, sender: UserID,
    remove: Bool, id: MessageID, at now: Date, tx: StoreTransaction
  ) throws -> LocalChangeOutcome {
    let db = tx.db
    if let refusal = try refusal(toMark: target, in: conversation, db: db) { return refusal }
    let wanted = !remove
    guard try holds(emoji, on: target, in: conversation, user: sender, db: db) != wanted else {
      return .unchanged
    }
    tx.touch(conversation)
    let cancelled = try db.query(
      """
      DELETE FROM messages WHERE id = (
        SELECT id FROM messages
        WHERE conversation_id = ? AND sender_id = ? AND target = ? AND kind = 'reaction'
          AND emoji = ? AND \(OutboxRows.queued)
        ORDER BY outbox_position DESC LIMIT 1)
        AND posted_text IS NULL
      RETURNING id
      """, conversation.rawValue, sender.rawValue, target.rawValue, emoji
    ) { $0.int(0) }
    if !cancelled.isEmpty {
      _ = try foldReactions(of: target, in: conversation, tx: tx)
      // Another device of mine may have made the state the cancelled row undid.
      if try holds(emoji, on: target, in: conversation, user: sender, db: db) == wanted {
        return .inPlace
      }
    }
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, text, sent_at, state,
                            outbox_position, kind, target, emoji, reaction_remove)
      VALUES (?, ?, ?, '', ?, 0, \(OutboxRows.nextPosition), 'reaction', ?, ?, ?)
      """, conversation.rawValue, id.rawValue, sender.rawValue, now.timeIntervalSince1970,
      target.rawValue, emoji, remove ? 1 : 0)
    _ = try foldReactions(of: target, in: conversation, tx: tx)
    return .queued
  }

  /// Why a message of the conversation (anyone's) cannot take my reaction or pin: not here
  /// (`notFound`), deleted, or I am no longer a member (`readOnly`); nil when it can.
  static func refusal(
    toMark target: MessageID, in conversation: ConversationID, db: Database
  ) throws -> LocalChangeOutcome? {
    guard
      let (isDeleted, isMember) = try db.query(
        """
        SELECT m.deleted, c.membership = 'member'
        FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id
        WHERE m.conversation_id = ? AND m.client_id = ? AND m.kind = 'message'
        ORDER BY m.sequence IS NULL, m.sequence LIMIT 1
        """, conversation.rawValue, target.rawValue, map: { ($0.int(0) != 0, $0.int(1) != 0) }
      ).first
    else { return .notFound }
    guard isMember else { return .readOnly }
    return isDeleted ? .deleted : nil
  }

  /// Whether the message shows `user` among those who put `emoji` on it.
  private static func holds(
    _ emoji: String, on message: MessageID, in conversation: ConversationID, user: UserID,
    db: Database
  ) throws -> Bool {
    let shown =
      try db.query(
        """
        SELECT reactions FROM messages WHERE conversation_id = ? AND client_id = ?
          AND kind = 'message'
        ORDER BY sequence IS NULL, sequence LIMIT 1
        """, conversation.rawValue, message.rawValue, map: { $0.optionalString(0) }
      ).first ?? nil
    let groups = shown.flatMap(Self.reactions(stored:)) ?? []
    return groups.contains {
      $0.emoji.utf8.elementsEqual(emoji.utf8) && $0.userIds.contains(user.rawValue)
    }
  }

  /// The server refused my queued reaction or pin `id`: its row goes, and the message (or the
  /// pinned bar) shows what the server and the rest of the queue make of it. Neither has a
  /// bubble to turn failed, and the 422 that refuses one mostly says the state is already the
  /// one asked for (API.md: "a client drops such a queued reaction without showing a
  /// failure"; pins: "dropped by the client, as a reaction that changes nothing"); any other
  /// refusal (the message was deleted meanwhile, a 21st emoji, an 11th pin) shows as the mark
  /// not being there. My forward refused with a 422 goes the same way: what it copies was
  /// deleted (or is not mine to see), so it could never be sent, and a copy kept would keep
  /// the deleted text on this device (simulation seed 54). Returns false when `id` is not a
  /// queued reaction, pin or forward of mine.
  static func dropRefusedMark(_ id: MessageID, sender: UserID, tx: StoreTransaction) throws
    -> Bool
  {
    let dropped = try tx.db.query(
      """
      DELETE FROM messages WHERE client_id = ? AND sender_id = ? AND sequence IS NULL
        AND (kind IN ('reaction', 'pin') OR (kind = 'message' AND forward_of != ''))
      RETURNING conversation_id, target, kind
      """, id.rawValue, sender.rawValue
    ) { ($0.string(0), $0.optionalString(1), $0.string(2)) }
    for (conversation, target, kind) in dropped {
      if kind == "message" {
        try dropQueuedChanges(of: id.rawValue, in: conversation, db: tx.db)
        tx.releaseMedia()
      }
      guard let conversation = ConversationID(rawValue: conversation) else { continue }
      tx.touch(conversation)
      guard let target = target.flatMap(MessageID.init(rawValue:)) else { continue }
      if kind == "pin" {
        try foldPins(of: conversation, tx: tx)
      } else {
        _ = try foldReactions(of: target, in: conversation, tx: tx)
      }
      tx.touch(conversation)
    }
    return !dropped.isEmpty
  }

  /// A message's reactions as shown (API.md Part 3): as the server last served them, with every
  /// reaction item held for it folded on top in sequence order, then my queued ones in the
  /// order they go out. Who holds an emoji is decided by the last item of that user and emoji,
  /// so folding items the served state already reflects changes nothing: the result converges
  /// whatever order pages and events came in. Items apply as the server accepted them (a
  /// refusal only means the state already says so). Returns the rows changed.
  static func foldReactions(
    of message: MessageID, in conversation: ConversationID, tx: StoreTransaction
  ) throws -> Int {
    let db = tx.db
    guard
      let (served, shown, deleted) = try db.query(
        """
        SELECT reactions_served, reactions, deleted FROM messages
        WHERE conversation_id = ? AND client_id = ? AND kind = 'message'
        ORDER BY sequence IS NULL, sequence LIMIT 1
        """, conversation.rawValue, message.rawValue,
        map: { ($0.optionalString(0), $0.optionalString(1), $0.int(2) != 0) }
      ).first
    else { return 0 }
    var reactions = Reactions(served.flatMap(Self.reactions(stored:)) ?? [])
    if !deleted {
      let items = try db.query(
        """
        SELECT sender_id, emoji, reaction_remove FROM messages
        WHERE conversation_id = ? AND target = ? AND kind = 'reaction'
          AND (sequence IS NOT NULL OR \(OutboxRows.queued))
        ORDER BY sequence IS NULL, sequence, outbox_position
        """, conversation.rawValue, message.rawValue,
        map: { ($0.string(0), $0.optionalString(1) ?? "", $0.int(2) != 0) })
      for (user, emoji, remove) in items
      where !(remove && tx.knownBugs.contains(.reactionsIgnoreRemovals)) {
        try? reactions.apply(emoji, by: user, remove: remove)
      }
    }
    let folded = deleted ? nil : Self.stored(reactions: reactions.groups)
    guard folded != shown else { return 0 }
    try db.run(
      """
      UPDATE messages SET reactions = ?
      WHERE conversation_id = ? AND client_id = ? AND kind = 'message'
      """, folded, conversation.rawValue, message.rawValue)
    return db.changes
  }
}
