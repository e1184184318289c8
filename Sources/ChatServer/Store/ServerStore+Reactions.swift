import ChatAPI
import SQLite

extension ServerStore {
  /// The message a reaction is for, and its reactions once the reaction applies (API.md Part
  /// 3, "Reactions"): a message of this conversation that the caller can see and that is not
  /// deleted, an emoji that is one emoji, at most 20 distinct emoji, and a change that changes
  /// something; else 422. Reads the message's stored reactions (`Reactions` holds the rules).
  static func reacted(_ new: NewMessage, in db: any StoreDatabase) throws -> (
    target: Int, reactions: [ReactionGroup]
  ) {
    let (sequence, stored) = try seenTarget(of: new, reading: "reactions", in: db)
    guard let emoji = new.emoji, Reactions.isEmoji(emoji) else {
      throw StoreError.invalid(
        "emoji must be one emoji: one grapheme of at most \(Reactions.maxEmojiBytes) UTF-8 "
          + "bytes.")
    }
    var reactions = Reactions(
      stored.flatMap { try? APICoding.decode([ReactionGroup].self, from: Array($0.utf8)) } ?? [])
    do {
      try reactions.apply(emoji, by: new.senderId, remove: new.remove)
    } catch .changesNothing {
      throw StoreError.invalid(
        new.remove
          ? "You have not reacted with this emoji: nothing to take back."
          : "You already reacted with this emoji.")
    } catch .tooManyEmoji {
      throw StoreError.invalid(
        "A message carries at most \(Reactions.maxDistinctEmoji) distinct emoji.")
    }
    return (sequence, reactions.groups)
  }

  /// The message a reaction or a pin names (`new.target`, by clientMessageId): a message of
  /// this conversation that the caller can see and that is not deleted, else 422 (no target:
  /// 400; not a member: 404). Returns its sequence and its `column` (as text).
  static func seenTarget(of new: NewMessage, reading column: String, in db: any StoreDatabase)
    throws -> (sequence: Int, value: String?)
  {
    guard let key = new.target?.key else {
      throw StoreError.malformed(
        "A \(new.kind.rawValue) needs target: the message's clientMessageId.")
    }
    guard let standing = try standing(db, of: new.conversationId, user: new.senderId) else {
      throw StoreError.notAMember
    }
    let candidates = try db.query(
      """
      SELECT sequence, deleted, \(column) FROM messages
      WHERE conversation_id = ? AND client_message_key = ? AND kind = 'message'
      ORDER BY sequence
      """, new.conversationId, key
    ) { row in (row.int(0), row.int(1) != 0, row.optionalString(2)) }
    guard let (sequence, deleted, value) = candidates.first(where: { standing.canSee($0.0) })
    else {
      throw StoreError.invalid("The target is not a message of this conversation you can see.")
    }
    guard !deleted else { throw StoreError.invalid("The target was deleted.") }
    return (sequence, value)
  }

  /// Writes a message's reactions in their current state (NULL for none).
  static func storeReactions(
    _ groups: [ReactionGroup], of sequence: Int, in conversation: String,
    _ db: any StoreDatabase
  ) throws {
    let json = groups.isEmpty ? nil : String(decoding: try APICoding.encode(groups), as: UTF8.self)
    try db.run(
      "UPDATE messages SET reactions = ? WHERE conversation_id = ? AND sequence = ?", json,
      conversation, sequence)
  }
}
