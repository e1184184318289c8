import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// Replies in `messages` (API.md Part 3, "Replies"): a reply's row keeps its target's client
/// message ID (`reply_to`) and the quote the server served (`quote`). What a screen shows is
/// the quote of the target as this device holds it now (the snapshot's queries join it:
/// `SnapshotQuery.quotedColumns`); the stored quote stands in only while the target is not held.
///
/// A stored quote is text of another message, so it follows that message: when the target's
/// text changes or is erased here, every stored quote of it is written again from the target
/// as it is now, and a quote served for a target held here is stored as the target is here.
/// No stored quote keeps a deleted message's bytes (the simulation's `bytes-left`).
extension MessagesTable {
  /// The quote of message `id` as this device holds it now; nil when it is not held.
  static func currentQuote(of id: String, in conversation: String, db: Database) throws
    -> Quote?
  {
    try db.query(
      """
      SELECT \(quoteColumns(of: "messages")) FROM messages
      WHERE id = (\(SnapshotQuery.heldTarget(of: "?1", in: "?2")))
      """, id, conversation
    ) { quote(held: $0, at: 0) }.first ?? nil
  }

  /// What `mentions` holds for a message whose mentions an edit made unknown: the server
  /// recomputes them from the new text, and an edit item does not carry them, so the catch-up
  /// asks for the message again (`CatchUp.refreshEdited`). Meanwhile it names nobody (no user
  /// ID is `?`), so no highlight and no count is wrong for long, and nothing is guessed by
  /// parsing the text (API.md: "never by parsing themselves").
  static let unknownMentions = "?"

  /// An edit item changed message `id`'s text: its mentions are unknown until it is served
  /// again.
  static func markMentionsUnknown(
    _ conversation: String, _ sender: String, _ id: String, db: Database
  ) throws {
    try db.run(
      """
      UPDATE messages SET mentions = ?
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND kind = 'message'
        AND sequence IS NOT NULL AND deleted = 0
      """, unknownMentions, conversation, sender, id)
  }

  /// The messages of a conversation whose mentions are unknown (`unknownMentions`).
  static func mentionsUnknown(in conversation: ConversationID, db: Database) throws -> [Int] {
    try db.query(
      """
      SELECT sequence FROM messages INDEXED BY messages_mentions_unknown
      WHERE conversation_id = ? AND mentions = '\(unknownMentions)' AND sequence IS NOT NULL
      ORDER BY sequence
      """, conversation.rawValue
    ) { $0.int(0) }
  }

  /// Writes the stored quotes of the replies to `target` again from `target` as held now
  /// (after its edit or delete); `reply`: only that reply's row (just saved). A hidden quote
  /// stays hidden. Returns the rows changed.
  @discardableResult
  static func requoteReplies(
    to target: String, in conversation: String, onlyRow reply: String? = nil,
    tx: StoreTransaction
  ) throws -> Int {
    let db = tx.db
    guard !tx.knownBugs.contains(.quotesAsServed),
      let quote = try currentQuote(of: target, in: conversation, db: db)
    else { return 0 }
    try db.run(
      """
      UPDATE messages INDEXED BY messages_replies SET quote = ?
      WHERE conversation_id = ? AND reply_to = ? AND quote IS NOT NULL AND quote != 'null'
        AND quote != ? AND (?5 IS NULL OR client_id = ?5)
      """, stored(quote: .shown(quote)), conversation, target, stored(quote: .shown(quote)),
      reply)
    return db.changes
  }
}
