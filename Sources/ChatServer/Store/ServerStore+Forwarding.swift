import ChatAPI
import SQLite
import Support

// API.md Part 3, "Forwarding": a message posted with `forwardOf` carries a copy of the current
// text and media of a message its sender can see, and nothing of where it came from but
// `forwarded: true`. The media bytes are shared by key, not copied: they stay while any
// message carrying the key lives (`ServerStore.store`'s delete, the media sweep).
extension ServerStore {
  /// What a forward copies: the current text and media of the message `source` names (its
  /// conversation and client message key), which `user` must be able to see, not deleted.
  /// A conversation `user` was never in: 404; a message it cannot see, a deleted one or none:
  /// 422. On PostgreSQL the source row is read `FOR SHARE`: a delete of it in the same moment
  /// (another conversation's lock) waits for this forward, then sees it carry the media and
  /// keeps the bytes; or it went first, and this read sees it deleted.
  static func forwarded(
    _ source: (conversationId: String, key: String), by user: String, _ db: any StoreDatabase
  ) throws -> (text: String, media: Media?) {
    guard let standing = try standing(db, of: source.conversationId, user: user) else {
      throw StoreError.notAMember
    }
    let candidates = try db.query(
      """
      SELECT sequence, text, media, deleted FROM messages
      WHERE conversation_id = ? AND client_message_key = ? AND kind = 'message'
      ORDER BY sequence\(db.dialect.forShare)
      """, source.conversationId, source.key
    ) { row in
      (
        sequence: row.int(0), text: row.string(1), media: row.optionalString(2),
        deleted: row.int(3) != 0
      )
    }
    guard let message = candidates.first(where: { standing.canSee($0.sequence) }) else {
      throw StoreError.invalid("forwardOf must be a message you can see.")
    }
    guard !message.deleted else { throw StoreError.invalid("The message forwarded was deleted.") }
    let media = try message.media.map { try APICoding.decode(Media.self, from: Array($0.utf8)) }
    return (message.text, media)
  }

  /// Whether another message that is not deleted carries `key` (a forward of the one deleted,
  /// or the one it forwarded): then the bytes and the upload stay.
  static func mediaStillCarried(_ key: String, _ db: any StoreDatabase) throws -> Bool {
    (try db.scalarInt(
      "SELECT count(*) FROM messages WHERE media_key = ? AND deleted = 0", key) ?? 0) > 0
  }
}
