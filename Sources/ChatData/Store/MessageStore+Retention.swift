import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// What pruning asks of one conversation: items below `floor` go.
struct PruneTarget: Sendable, Equatable {
  var conversation: ConversationID
  var floor: Int
}

extension MessageStore {
  /// The conversations `retention` prunes at `now`, each with the lowest sequence it keeps.
  ///
  /// A floor is the stricter of the window by age (the first item sent at or after `now`
  /// less the days) and by count (the `messagesPerConversation`-th newest message), but never
  /// above the newest message (the list's row), my read position + 1 (unread items stay), or
  /// what the conversation has synced (the held range stays one range). Only conversations
  /// with held items below their floor are returned, so a second call after pruning is empty.
  func pruneTargets(_ retention: Retention, now: Date) throws(StoreError) -> [PruneTarget] {
    guard retention.prunesMessages else { return [] }
    return try read { db in
      let conversations = try db.query(
        "SELECT id, read_up_to, synced_up_to, coalesce(history_floor, 1) FROM conversations"
      ) { ($0.string(0), $0.int(1), $0.optionalInt(2), $0.int(3)) }
      var targets: [PruneTarget] = []
      for (id, readUpTo, syncedUpTo, historyFloor) in conversations {
        guard let syncedUpTo,
          let newest = try db.scalarInt(
            """
            SELECT max(sequence) FROM messages
            WHERE conversation_id = ? AND kind = 'message' AND sequence IS NOT NULL
            """, id)
        else { continue }
        var floor = historyFloor
        if let days = retention.messageDays {
          let cutoff = now.addingTimeInterval(-Double(days) * 86_400).timeIntervalSince1970
          let first = try db.scalarInt(
            """
            SELECT min(sequence) FROM messages
            WHERE conversation_id = ? AND sequence IS NOT NULL AND sent_at >= ?
            """, id, cutoff)
          floor = max(floor, first ?? newest)
        }
        if let count = retention.messagesPerConversation,
          let kept = try db.scalarInt(
            """
            SELECT sequence FROM messages
            WHERE conversation_id = ? AND kind = 'message' AND sequence IS NOT NULL
            ORDER BY sequence DESC LIMIT 1 OFFSET ?
            """, id, count - 1)
        {
          floor = max(floor, kept)
        }
        floor = min(floor, newest, readUpTo + 1, syncedUpTo)
        floor = max(floor, historyFloor)
        let below = try db.scalarInt(
          "SELECT count(*) FROM messages WHERE conversation_id = ? AND sequence < ?", id, floor)
        if (below ?? 0) > 0, let conversation = ConversationID(rawValue: id) {
          targets.append(PruneTarget(conversation: conversation, floor: floor))
        }
      }
      return targets
    }
  }

  /// One small transaction of pruning: the conversation's history now begins at `floor`
  /// (paging back asks the server), and up to `batch` held items below it are deleted, oldest
  /// first (the search indexes follow through their triggers; media files no row names are
  /// swept after the commit). Unsent rows have no sequence and are never below a floor.
  /// Returns how many items it deleted: fewer than `batch` when the conversation is done.
  func pruneStep(_ target: PruneTarget, batch: Int) throws(StoreError) -> Int {
    try write { db in
      try db.run(
        """
        UPDATE conversations SET history_floor = ?
        WHERE id = ? AND coalesce(history_floor, 1) < ?
        """, target.floor, target.conversation.rawValue, target.floor)
      try db.run(Self.pruneSQL, target.conversation.rawValue, target.floor, batch)
      let deleted = db.changes
      if deleted > 0 {
        touch(target.conversation)
        releaseMedia()
      }
      return deleted
    }
  }

  /// The delete of one pruning transaction: up to `?` (batch) held items of conversation `?`
  /// below `?` (its floor), oldest first.
  static let pruneSQL = """
    DELETE FROM messages WHERE id IN (
      SELECT id FROM messages WHERE conversation_id = ? AND sequence < ?
      ORDER BY sequence LIMIT ?)
    """

  /// Whether some conversation's history here does not reach its first item: pruned, paged
  /// back only so far, or never fetched (a local search may miss older matches).
  func holdsPartialHistory() throws(StoreError) -> Bool {
    try read { db in
      try db.scalarInt(
        """
        SELECT EXISTS (SELECT 1 FROM conversations WHERE coalesce(history_floor, 1) > 1
          OR (synced_up_to IS NULL AND last_sequence > 0))
        """) == 1
    }
  }

  /// Downloaded media of messages sent before `cutoff` loses its bytes (the row, with its
  /// thumbnail, stays; my unsent messages' files are their only copy and stay): the sweep
  /// after the commit deletes the files. Returns how many.
  func expireMedia(sentBefore cutoff: Date) throws(StoreError) -> Int {
    try write { db in
      let expired = try db.query(
        """
        UPDATE messages SET media_file = NULL
        WHERE media_file IS NOT NULL AND sequence IS NOT NULL AND sent_at < ?
        RETURNING conversation_id, media_file
        """, cutoff.timeIntervalSince1970
      ) { ($0.string(0), $0.string(1)) }
      for (conversation, _) in expired {
        if let id = ConversationID(rawValue: conversation) { touch(id) }
      }
      if !expired.isEmpty { releaseMedia() }
      return expired.count
    }
  }
}
