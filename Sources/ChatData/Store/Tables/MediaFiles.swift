import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// My upload as the store keeps it (API.md Part 2, "Media"): each step is written when done,
/// so a killed app resumes at the step after it.
struct UploadRecord: Sendable, Equatable {
  /// The message's media; its `key` is empty until the upload completed.
  var media: Media
  /// The bytes' file name in the media folder.
  var file: String?
  /// The store's key once `POST /v1/media/uploads` answered.
  var key: String?
  /// The bytes the store confirmed (for the bubble's progress).
  var sent: Int
  /// Completed: the message can be posted with `media.key`.
  var done: Bool
}

/// Media in `messages` and the files in the media folder (`MediaFolder`): my uploads, step by
/// step; others' downloads, a cache bounded in bytes; and the sweep of the files no row names.
///
/// ## Rules a reader could not guess
/// - A row names its file (`media_file`); a file no row names is deleted by the sweep after
///   any write that released media (`StoreTransaction.releaseMedia`) and at launch, except a
///   download in progress (`<conversation>@<sender>@<id>.part`) and a file being written for
///   a message not saved yet (`MessageStore.reserveMediaFile`).
/// - My files are never evicted: until the server has them they are the only copy.
enum MediaFiles {
  /// The automatic-download setting's key in `SettingsTable`.
  static let autoDownloadKey = "media.autoDownload"

  // MARK: - Uploads

  /// My unsent message's upload; nil when it has no media (or is gone, deleted meanwhile).
  static func upload(
    of id: MessageID, in conversation: ConversationID, sender: UserID, db: Database
  ) throws -> UploadRecord? {
    try db.query(
      """
      SELECT media, media_file, upload_key, upload_sent, upload_done FROM messages
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
      """, conversation.rawValue, sender.rawValue, id.rawValue
    ) { row -> UploadRecord? in
      guard let media = MessagesTable.media(stored: row.string(0)) else { return nil }
      return UploadRecord(
        media: media, file: row.optionalString(1), key: row.optionalString(2),
        sent: row.int(3), done: row.int(4) != 0)
    }.first ?? nil
  }

  /// A step of my unsent message's upload, written when done.
  enum UploadStep {
    /// The store answered `POST /v1/media/uploads` with this key: from now on the upload
    /// resumes.
    case started(key: String)
    /// The store has confirmed this many bytes.
    case progress(sent: Int)
    /// The store put the upload together: the message goes out with this key.
    case completed(key: String)
    /// The upload is unknown to the server (swept, or refused at completion): the next
    /// attempt starts a new one.
    case forgotten
  }

  static func save(
    _ step: UploadStep, of id: MessageID, in conversation: ConversationID, sender: UserID,
    tx: StoreTransaction
  ) throws {
    let (assignments, values): (String, [any SQLBindable]) =
      switch step {
      case .started(let key): ("upload_key = ?, upload_sent = 0, upload_done = 0", [key])
      case .progress(let sent): ("upload_sent = ?", [sent])
      case .completed(let key):
        (
          "upload_done = 1, upload_sent = json_extract(media, '$.byteCount'), upload_key = ?, "
            + "media = json_set(media, '$.key', ?)", [key, key]
        )
      case .forgotten:
        (
          "upload_key = NULL, upload_sent = 0, upload_done = 0, "
            + "media = json_set(media, '$.key', '')", []
        )
      }
    try tx.db.run(
      """
      UPDATE messages SET \(assignments)
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
        AND sequence IS NULL
      """,
      values: values + [conversation.rawValue, sender.rawValue, id.rawValue])
    if tx.db.changes > 0 { tx.touch(conversation) }
  }

  // MARK: - Downloads and the cache

  /// Others' media in `conversations` whose bytes are not here (newest first), for the
  /// automatic downloads.
  static func toFetch(in conversations: [ConversationID], me: UserID, db: Database) throws
    -> [(MessageID, ConversationID)]
  {
    var found: [(MessageID, ConversationID)] = []
    for conversation in conversations {
      found += try db.query(
        """
        SELECT client_id FROM messages
        WHERE conversation_id = ? AND media IS NOT NULL AND media_file IS NULL
          AND deleted = 0 AND sender_id != ? AND sequence IS NOT NULL AND kind = 'message'
        ORDER BY sequence DESC
        """, conversation.rawValue, me.rawValue
      ) { MessageID(rawValue: $0.string(0)).map { ($0, conversation) } }.compactMap { $0 }
    }
    return found
  }

  /// A message's media and where its bytes are here (nil: not downloaded); nil when the
  /// message has none (or is not here).
  static func media(of id: MessageID, in conversation: ConversationID, db: Database) throws
    -> (media: Media, file: String?, sender: UserID)?
  {
    try db.query(
      """
      SELECT media, media_file, sender_id FROM messages
      WHERE conversation_id = ? AND client_id = ? AND kind = 'message' AND media IS NOT NULL
        AND deleted = 0
      ORDER BY sequence IS NULL LIMIT 1
      """, conversation.rawValue, id.rawValue
    ) { row -> (Media, String?, UserID)? in
      guard let media = MessagesTable.media(stored: row.string(0)),
        let sender = UserID(rawValue: row.string(2))
      else { return nil }
      return (media, row.optionalString(1), sender)
    }.first ?? nil
  }

  /// The bytes of `id`'s media are now `file` in the media folder (downloaded, or opened:
  /// viewed at `now` either way).
  static func saveFile(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, file: String, at now: Date,
    tx: StoreTransaction
  ) throws {
    try tx.db.run(
      """
      UPDATE messages SET media_file = ?, media_viewed = ?
      WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
      """, file, now.timeIntervalSince1970, conversation.rawValue, sender.rawValue,
      id.rawValue)
    if tx.db.changes > 0 { tx.touch(conversation) }
  }

  /// Keeps others' downloaded media within `limit` bytes: the least recently viewed lose their
  /// file first (mine stay: they are the only copy until the server has them, and the sender's
  /// own). Returns the names of the files to delete.
  static func trimCache(to limit: Int, me: UserID, tx: StoreTransaction) throws -> [String] {
    let held = try tx.db.query(
      """
      SELECT id, conversation_id, media_file, json_extract(media, '$.byteCount')
      FROM messages WHERE media_file IS NOT NULL AND sender_id != ?
      ORDER BY media_viewed DESC
      """, me.rawValue
    ) { ($0.int(0), $0.string(1), $0.string(2), $0.int(3)) }
    var total = 0
    var evicted: [String] = []
    for (row, conversation, file, size) in held {
      total += size
      guard total > limit else { continue }
      try tx.db.run("UPDATE messages SET media_file = NULL WHERE id = ?", row)
      tx.touch([conversation])
      evicted.append(file)
    }
    return evicted
  }

  // MARK: - The sweep

  /// Deletes the media folder's files no row names (a deleted message's, a download that
  /// will never finish), but those in `reserved` (and their `.tmp`). Nothing goes when the
  /// database cannot say which files it names.
  static func removeUnreferenced(in folder: MediaFolder, reserved: Set<String>, db: Database) {
    let names = folder.names()
    guard !names.isEmpty,
      let referenced = try? db.query(
        "SELECT media_file FROM messages INDEXED BY messages_media_files WHERE media_file IS NOT NULL",
        map: { $0.string(0) }),
      let downloading = try? db.query(
        "SELECT conversation_id || '@' || sender_id || '@' || client_id FROM messages"
          + " WHERE media IS NOT NULL AND media_file IS NULL AND deleted = 0",
        map: { $0.string(0) + ".part" })
    else { return }
    let keep = Set(referenced).union(downloading).union(reserved)
      .union(reserved.map { $0 + ".tmp" })
    for name in names where !keep.contains(name) { folder.remove(name) }
  }
}
