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

extension MessageStore {
  static func media(stored: String) -> Media? {
    try? APICoding.decode(Media.self, from: stored)
  }

  static func stored(media: Media) -> String {
    String(decoding: APICoding.encode(media), as: UTF8.self)
  }

  // MARK: - Uploads

  /// My unsent message's upload; nil when it has no media (or is gone, deleted meanwhile).
  func upload(of id: MessageID, in conversation: ConversationID, sender: UserID)
    throws(StoreError) -> UploadRecord?
  {
    try read { db in
      try db.query(
        """
        SELECT media, media_file, upload_key, upload_sent, upload_done FROM messages
        WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
        """, conversation.rawValue, sender.rawValue, id.rawValue
      ) { row -> UploadRecord? in
        guard let media = Self.media(stored: row.string(0)) else { return nil }
        return UploadRecord(
          media: media, file: row.optionalString(1), key: row.optionalString(2),
          sent: row.int(3), done: row.int(4) != 0)
      }.first ?? nil
    }
  }

  /// The store answered `POST /v1/media/uploads` with `key`: from now on the upload resumes.
  func saveUploadStarted(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, key: String
  ) throws(StoreError) {
    try updateUpload(
      id, conversation, sender, "upload_key = ?, upload_sent = 0, upload_done = 0", key)
  }

  /// The store has confirmed `sent` bytes.
  func saveUploadProgress(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, sent: Int
  ) throws(StoreError) {
    try updateUpload(id, conversation, sender, "upload_sent = ?", sent)
  }

  /// The store put the upload together: the message goes out with this key.
  func saveUploadCompleted(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, key: String
  ) throws(StoreError) {
    try updateUpload(
      id, conversation, sender,
      "upload_done = 1, upload_sent = json_extract(media, '$.byteCount'), upload_key = ?, "
        + "media = json_set(media, '$.key', ?)", key, key)
  }

  /// The upload is unknown to the server (swept, or refused at completion): the next attempt
  /// starts a new one.
  func forgetUpload(_ id: MessageID, in conversation: ConversationID, sender: UserID)
    throws(StoreError)
  {
    try updateUpload(
      id, conversation, sender,
      "upload_key = NULL, upload_sent = 0, upload_done = 0, media = json_set(media, '$.key', '')")
  }

  private func updateUpload(
    _ id: MessageID, _ conversation: ConversationID, _ sender: UserID, _ assignments: String,
    _ values: any SQLBindable...
  ) throws(StoreError) {
    try write { db in
      try db.run(
        """
        UPDATE messages SET \(assignments)
        WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
          AND sequence IS NULL
        """,
        values: values + [conversation.rawValue, sender.rawValue, id.rawValue])
      if db.changes > 0 { touch(conversation) }
    }
  }

  // MARK: - Downloads and the cache

  /// The automatic-download setting as saved (nil: never set).
  func autoDownloadSetting() throws(StoreError) -> String? {
    try setting("media.autoDownload")
  }

  func saveAutoDownloadSetting(_ value: String) throws(StoreError) {
    try saveSetting("media.autoDownload", value)
  }

  /// Others' media in `conversations` whose bytes are not here (newest first), for the
  /// automatic downloads.
  func mediaToFetch(in conversations: [ConversationID], me: UserID) throws(StoreError)
    -> [(MessageID, ConversationID)]
  {
    try read { db in
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
  }

  /// A message's media and where its bytes are here (nil: not downloaded); nil when the
  /// message has none (or is not here).
  func media(of id: MessageID, in conversation: ConversationID) throws(StoreError)
    -> (media: Media, file: String?, sender: UserID)?
  {
    try read { db in
      try db.query(
        """
        SELECT media, media_file, sender_id FROM messages
        WHERE conversation_id = ? AND client_id = ? AND kind = 'message' AND media IS NOT NULL
          AND deleted = 0
        ORDER BY sequence IS NULL LIMIT 1
        """, conversation.rawValue, id.rawValue
      ) { row -> (Media, String?, UserID)? in
        guard let media = Self.media(stored: row.string(0)),
          let sender = UserID(rawValue: row.string(2))
        else { return nil }
        return (media, row.optionalString(1), sender)
      }.first ?? nil
    }
  }

  /// The bytes of `id`'s media are now `file` in the media folder (downloaded, or opened:
  /// viewed at `now` either way).
  func saveMediaFile(
    _ id: MessageID, in conversation: ConversationID, sender: UserID, file: String, at now: Date
  ) throws(StoreError) {
    try write { db in
      try db.run(
        """
        UPDATE messages SET media_file = ?, media_viewed = ?
        WHERE conversation_id = ? AND sender_id = ? AND client_id = ? AND media IS NOT NULL
        """, file, now.timeIntervalSince1970, conversation.rawValue, sender.rawValue,
        id.rawValue)
      if db.changes > 0 { touch(conversation) }
    }
  }

  /// Keeps others' downloaded media within `limit` bytes: the least recently viewed lose their
  /// file first (mine stay: they are the only copy until the server has them, and the sender's
  /// own). Returns the names of the files to delete.
  func trimMediaCache(to limit: Int, me: UserID) throws(StoreError) -> [String] {
    try write { db in
      let held = try db.query(
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
        try db.run("UPDATE messages SET media_file = NULL WHERE id = ?", row)
        if let id = ConversationID(rawValue: conversation) { touch(id) }
        evicted.append(file)
      }
      return evicted
    }
  }

  /// Deletes the media folder's files no row names (a deleted message's, a download that
  /// will never finish): after deletes, and at launch.
  func removeUnreferencedMediaFiles() {
    guard let media else { return }
    let names = media.names()
    guard !names.isEmpty,
      let referenced = try? db.query(
        "SELECT media_file FROM messages INDEXED BY messages_media_files WHERE media_file IS NOT NULL",
        map: { $0.string(0) }),
      let downloading = try? db.query(
        "SELECT conversation_id || '@' || sender_id || '@' || client_id FROM messages"
          + " WHERE media IS NOT NULL AND media_file IS NULL AND deleted = 0",
        map: { $0.string(0) + ".part" })
    else { return }
    let keep = Set(referenced).union(downloading).union(reservedMediaFiles)
      .union(reservedMediaFiles.map { $0 + ".tmp" })
    for name in names where !keep.contains(name) { media.remove(name) }
  }
}
