import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// One pinned message in a conversation's stored lists (`pinned_served`, `pinned`): its ID, and
/// its sequence when known (a pin item names its message only by ID).
package struct PinnedEntry: Sendable, Equatable {
  var id: MessageID
  var sequence: Int?

  /// A list as stored: `sequence:id` elements, newest pin first, comma-separated (no client
  /// message ID holds a comma or a colon; the sequence is empty when not known).
  static func stored(_ list: [PinnedEntry]) -> String? {
    list.isEmpty
      ? nil
      : list.map { "\($0.sequence.map(String.init) ?? ""):\($0.id)" }
        .joined(separator: ",")
  }

  static func list(stored: String?) -> [PinnedEntry] {
    (stored ?? "").split(separator: ",").compactMap { element in
      let parts = element.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, let id = MessageID(rawValue: String(parts[1])) else { return nil }
      return PinnedEntry(id: id, sequence: Int(parts[0]))
    }
  }
}

/// Pins (API.md Part 3, "Pins"): a conversation's `pinned` column is what the screen's pinned
/// bar shows, folded from what the server last served and the pin items held above it, mine
/// not yet sent included; my pins wait in the outbox as rows of kind `pin`.
extension MessagesTable {
  /// I pin a message of the conversation (anyone's), or unpin it (`remove`). Shown at once.
  /// When it is what the conversation already shows, nothing changes (`unchanged`); a pin past
  /// `APILimits.maxPins` is `full`. My opposite pin of it still queued and not posted yet is
  /// cancelled in place (`inPlace`); otherwise the pin item `id` waits in the outbox (`queued`).
  static func pin(
    _ target: MessageID, in conversation: ConversationID, sender: UserID, remove: Bool,
    id: MessageID, at now: Date, tx: StoreTransaction
  ) throws -> LocalChangeOutcome {
    let db = tx.db
    if let refusal = try refusal(toMark: target, in: conversation, db: db) { return refusal }
    let shown = try pins(shownPins(of: conversation, db: db), in: conversation, db: db)
    guard shown.contains(where: { $0.id == target }) == remove else { return .unchanged }
    if !remove, shown.count >= APILimits.maxPins { return .full }
    tx.touch(conversation)
    let cancelled = try db.query(
      """
      DELETE FROM messages WHERE id = (
        SELECT id FROM messages
        WHERE conversation_id = ? AND sender_id = ? AND target = ? AND kind = 'pin'
          AND \(OutboxRows.queued)
        ORDER BY outbox_position DESC LIMIT 1)
        AND posted_text IS NULL
      RETURNING id
      """, conversation.rawValue, sender.rawValue, target.rawValue
    ) { $0.int(0) }
    if !cancelled.isEmpty {
      try foldPins(of: conversation, tx: tx)
      // Another device of mine may have made the state the cancelled row undid.
      if try shownPins(of: conversation, db: db).contains(where: { $0.id == target }) != remove {
        return .inPlace
      }
    }
    try db.run(
      """
      INSERT INTO messages (conversation_id, client_id, sender_id, text, sent_at, state,
                            outbox_position, kind, target, reaction_remove)
      VALUES (?, ?, ?, '', ?, 0, \(OutboxRows.nextPosition), 'pin', ?, ?)
      """, conversation.rawValue, id.rawValue, sender.rawValue, now.timeIntervalSince1970,
      target.rawValue, remove ? 1 : 0)
    try foldPins(of: conversation, tx: tx)
    return .queued
  }

  /// The conversation's `pinned` column (deleted messages not yet left out).
  private static func shownPins(of conversation: ConversationID, db: Database) throws
    -> [PinnedEntry]
  {
    let stored =
      try db.query(
        "SELECT pinned FROM conversations WHERE id = ?", conversation.rawValue,
        map: { $0.optionalString(0) }
      ).first ?? nil
    return PinnedEntry.list(stored: stored)
  }

  /// A conversation's pins as shown (API.md Part 3): as the server last served them, true up
  /// to `pinned_as_of`, with every pin item held above that folded on top in sequence order,
  /// then my queued ones in the order they go out; each item puts its message first or takes
  /// it out. Items at or below `pinned_as_of` are already in the served list, so a page or an
  /// event arriving late changes nothing, and the next served list replaces what the items
  /// said. A deleted message stays in the column and is left out when read (`pins(_:in:db:)`).
  static func foldPins(of conversation: ConversationID, tx: StoreTransaction) throws {
    let db = tx.db
    guard
      let (served, asOf, shown) = try db.query(
        "SELECT pinned_served, pinned_as_of, pinned FROM conversations WHERE id = ?",
        conversation.rawValue,
        map: { ($0.optionalString(0), $0.int(1), $0.optionalString(2)) }
      ).first
    else { return }
    var list = PinnedEntry.list(stored: served)
    let items = try db.query(
      """
      SELECT p.target, p.reaction_remove, (
          SELECT m.sequence FROM messages AS m
          WHERE m.conversation_id = p.conversation_id AND m.client_id = p.target
            AND m.kind = 'message' AND m.sequence IS NOT NULL LIMIT 1)
      FROM messages AS p
      WHERE p.conversation_id = ? AND p.kind = 'pin'
        AND (p.sequence > ? OR (p.sequence IS NULL AND p.outbox_position IS NOT NULL
          AND p.state = 0))
      ORDER BY p.sequence IS NULL, p.sequence, p.outbox_position
      """, conversation.rawValue, asOf,
      map: { ($0.optionalString(0), $0.int(1) != 0, $0.optionalInt(2)) })
    for case (let target?, let remove, let sequence) in items {
      guard let id = MessageID(rawValue: target) else { continue }
      list.removeAll { $0.id == id }
      if !remove { list.insert(PinnedEntry(id: id, sequence: sequence), at: 0) }
    }
    let folded = PinnedEntry.stored(list)
    guard folded != shown else { return }
    try db.run(
      "UPDATE conversations SET pinned = ? WHERE id = ?", folded, conversation.rawValue)
    tx.touch(conversation)
  }

  /// The pins a screen shows: each with its message's sequence, text and sender when this
  /// device holds it; a message deleted here is left out (its delete unpinned it).
  static func pins(_ entries: [PinnedEntry], in conversation: ConversationID, db: Database)
    throws -> [Pin]
  {
    try entries.compactMap { entry in
      let held =
        try db.query(
          """
          SELECT sequence, text, sender_id, deleted FROM messages
          WHERE conversation_id = ? AND client_id = ? AND kind = 'message'
          ORDER BY sequence IS NULL, sequence LIMIT 1
          """, conversation.rawValue, entry.id.rawValue,
          map: { ($0.optionalInt(0), $0.string(1), $0.string(2), $0.int(3) != 0) }
        ).first
      guard let (sequence, text, sender, deleted) = held else {
        return Pin(id: entry.id, sequence: entry.sequence)
      }
      guard !deleted else { return nil }
      return Pin(
        id: entry.id, sequence: sequence ?? entry.sequence, text: text,
        senderID: UserID(rawValue: sender))
    }
  }
}
