import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// A draft as the server served it (the conversation item's `draft`), or as owed to it.
package struct DraftRecord: Sendable, Equatable {
  var conversation: ConversationID
  var text: String
  var replyTo: MessageID?
  /// The server's version: the one served, or the one it was typed on.
  var version: Int
}

/// My drafts in `conversations` (API.md Part 3, "Drafts, on every device of the user"). A draft
/// is saved here first, so one typed offline survives a kill; the server is owed it while
/// `draft_dirty` says it was typed here since its last successful save.
///
/// ## Rules a reader could not guess
/// - A served draft replaces mine only when I owe the server nothing and it is not older than
///   the version mine was typed on: what I typed since my last save is never lost.
/// - A 409 keeps what I typed and moves it onto the server's version: the next save sends it
///   again there (API.md: "keeps what its user typed after its last successful save and sends
///   that again on the new version").
extension ConversationsTable {
  /// I typed: the draft is saved here and owed to the server. False when it already said so.
  static func typeDraft(
    _ text: String, replyTo: MessageID?, in conversation: ConversationID, tx: StoreTransaction
  ) throws -> Bool {
    try tx.db.run(
      """
      UPDATE conversations SET draft_text = ?, draft_reply_to = ?, draft_dirty = 1
      WHERE id = ? AND (draft_text IS NOT ? OR draft_reply_to IS NOT ?)
      """, text, replyTo?.rawValue, conversation.rawValue, text, replyTo?.rawValue)
    let changed = tx.db.changes > 0
    if changed { tx.touch(conversation) }
    return changed
  }

  /// I sent a message here: the draft is cleared, on every device (a save of "" and null).
  static func clearDraftAfterSend(_ conversation: ConversationID, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      UPDATE conversations SET draft_text = '', draft_reply_to = NULL, draft_dirty = 1
      WHERE id = ? AND (draft_text != '' OR draft_reply_to IS NOT NULL)
      """, conversation.rawValue)
    if tx.db.changes > 0 { tx.touch(conversation) }
  }

  /// A draft the server served (mine, from another device or this one).
  static func saveServedDraft(_ draft: DraftRecord, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      UPDATE conversations SET draft_text = ?, draft_reply_to = ?, draft_version = ?
      WHERE id = ? AND draft_dirty = 0 AND draft_version <= ?
        AND (draft_text IS NOT ? OR draft_reply_to IS NOT ? OR draft_version != ?)
      """, draft.text, draft.replyTo?.rawValue, draft.version, draft.conversation.rawValue,
      draft.version, draft.text, draft.replyTo?.rawValue, draft.version)
    if tx.db.changes > 0 { tx.touch(draft.conversation) }
  }

  /// The drafts the server is owed, in conversation order.
  static func owedDrafts(db: Database) throws -> [DraftRecord] {
    try db.query(
      """
      SELECT id, coalesce(draft_text, ''), draft_reply_to, draft_version FROM conversations
      WHERE draft_dirty = 1 ORDER BY id
      """
    ) { row in
      ConversationID(rawValue: row.string(0)).map {
        DraftRecord(
          conversation: $0, text: row.string(1),
          replyTo: row.optionalString(2).flatMap(MessageID.init(rawValue:)),
          version: row.int(3))
      }
    }.compactMap { $0 }
  }

  /// The server took `sent` as `version`: owed no more, unless I typed again meanwhile.
  static func draftSaved(_ sent: DraftRecord, as version: Int, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      UPDATE conversations SET draft_version = max(draft_version, ?),
        draft_dirty = CASE WHEN coalesce(draft_text, '') = ? AND draft_reply_to IS ? THEN 0
                           ELSE draft_dirty END
      WHERE id = ?
      """, version, sent.text, sent.replyTo?.rawValue, sent.conversation.rawValue)
  }

  /// The server's draft is at `version`, not the one mine was typed on: mine moves onto it
  /// and stays owed.
  static func draftConflicted(
    _ conversation: ConversationID, serverVersion version: Int, tx: StoreTransaction
  ) throws {
    try tx.db.run(
      "UPDATE conversations SET draft_version = ? WHERE id = ?", version, conversation.rawValue)
  }

  /// The server refused the draft for good: it is owed no more, and with `discarding` (I am no
  /// longer a member) its text goes too.
  static func dropOwedDraft(
    _ conversation: ConversationID, discarding: Bool, tx: StoreTransaction
  ) throws {
    guard discarding else {
      try tx.db.run(
        "UPDATE conversations SET draft_dirty = 0 WHERE id = ?", conversation.rawValue)
      return
    }
    try tx.db.run(
      """
      UPDATE conversations SET draft_text = NULL, draft_reply_to = NULL, draft_dirty = 0
      WHERE id = ?
      """, conversation.rawValue)
    if tx.db.changes > 0 { tx.touch(conversation) }
  }
}
