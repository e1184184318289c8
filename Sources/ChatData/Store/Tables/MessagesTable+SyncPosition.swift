import ChatDomain
import ChatIdentifiers
import SQLite

/// What saving a batch of the server's messages changed in a conversation's sync position.
package struct SaveOutcome: Sendable, Equatable {
  /// Every message up to here (from the history floor) is held; nil when never fetched.
  var syncedUpTo: Int?
  /// A held or announced message lies above `syncedUpTo`: there is a gap to fill with `?after=`.
  var hasGap: Bool
  /// Messages of this save dropped because another row held their sequence (see
  /// `MessagesTable.saveServerMessages`).
  var clashes = 0
}

/// A conversation's sync position: `history_floor...synced_up_to` is the range of its items
/// this device holds without a hole (`conversations`' columns, walked over `messages`' rows).
/// Above it, a held or announced item is a gap that catch-up fills with `?after=`.
extension MessagesTable {
  /// Walks `synced_up_to` over the rows held just above it, within my visible ranges.
  static func advanceSyncPosition(_ conversation: ConversationID, db: Database) throws
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
  static func setSyncPosition(
    _ conversation: ConversationID, syncedUpTo: Int?, historyFloor: Int?, tx: StoreTransaction
  ) throws -> SaveOutcome {
    try tx.db.run(
      """
      UPDATE conversations SET
        synced_up_to = CASE WHEN ? IS NULL THEN synced_up_to
                            ELSE max(coalesce(synced_up_to, 0), ?) END,
        history_floor = CASE WHEN ? IS NULL THEN history_floor
                             ELSE min(coalesce(history_floor, ?), ?) END
      WHERE id = ?
      """, syncedUpTo, syncedUpTo, historyFloor, historyFloor, historyFloor,
      conversation.rawValue)
    tx.touch(conversation)
    return try advanceSyncPosition(conversation, db: tx.db)
  }
}
