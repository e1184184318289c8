import ChatAPI
import SQLite
import Support

/// An upload a device asked for (`POST /v1/media/uploads`), as the store keeps it.
struct MediaUpload: Sendable, Equatable {
  var mediaKey: String
  var ownerId: String
  var kind: MediaKind
  var contentType: String
  var byteCount: Int
  var sha256: String
  var fileName: String?
  /// The object store's multipart upload; nil for one sent in a single `PUT`.
  var uploadId: String?
  var complete: Bool
  var createdAt: Timestamp

  /// Where the device's presigned URLs put the bytes.
  var incomingKey: String { "incoming/\(mediaKey)" }
  /// Where the bytes are once checked, and downloaded from: no `PUT` URL ever names it.
  var mediaObjectKey: String { Self.mediaObjectKey(mediaKey) }

  static func mediaObjectKey(_ mediaKey: String) -> String { "media/\(mediaKey)" }
}

extension ServerStore {
  /// The columns `mediaUpload(_:)` reads, in its order.
  static let uploadColumns = """
    media_key, owner_id, kind, content_type, byte_count, sha256, file_name, upload_id,
    complete, created_at
    """

  static func mediaUpload(_ row: any StoreRow) -> MediaUpload {
    MediaUpload(
      mediaKey: row.string(0), ownerId: row.string(1),
      kind: MediaKind(rawValue: row.string(2)) ?? .file, contentType: row.string(3),
      byteCount: row.int(4), sha256: row.string(5), fileName: row.optionalString(6),
      uploadId: row.optionalString(7), complete: row.int(8) != 0,
      createdAt: Timestamp(millisecondsSince1970: Int64(row.int(9))))
  }

  func saveUpload(_ upload: MediaUpload) async throws(StoreError) {
    try await writing { db in
      try db.run(
        """
        INSERT INTO media_uploads (media_key, owner_id, kind, content_type, byte_count, sha256,
                                   file_name, upload_id, complete, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
        """, upload.mediaKey, upload.ownerId, upload.kind.rawValue, upload.contentType,
        upload.byteCount, upload.sha256, upload.fileName, upload.uploadId,
        upload.createdAt.millisecondsSince1970)
    }
  }

  /// The upload `key` of `owner`; nil for none, or another user's (the same 404 either way).
  func upload(_ key: String, of owner: String) async throws(StoreError) -> MediaUpload? {
    try await reading { db in
      try db.query(
        """
        SELECT \(Self.uploadColumns)
        FROM media_uploads WHERE media_key = ? AND owner_id = ?
        """, key, owner
      ) { Self.mediaUpload($0) }.first
    }
  }

  /// The upload behind `key` when `user` can see a message, not deleted, that carries it: a
  /// member (or former member) whose visible ranges hold the message's sequence; and when the
  /// newest message carrying it (a forward, API.md Part 3) was sent, which the retention
  /// counts from.
  func visibleMedia(_ key: String, to user: String) async throws(StoreError)
    -> (upload: MediaUpload, newestCarrier: Timestamp)?
  {
    let visible = try await reading { db in
      try db.scalarInt(
        """
        SELECT count(*) FROM messages m JOIN member_ranges r
          ON r.conversation_id = m.conversation_id AND r.user_id = ?
          AND r.first_sequence <= m.sequence
          AND (r.last_sequence IS NULL OR r.last_sequence >= m.sequence)
        WHERE m.media_key = ? AND m.deleted = 0
        """, user, key) ?? 0
    }
    guard visible > 0 else { return nil }
    let found = try await reading { db in
      try db.query(
        "SELECT owner_id, purged FROM media_uploads WHERE media_key = ? AND complete = 1", key
      ) { ($0.string(0), $0.int(1) != 0) }.first
    }
    guard let (owner, purged) = found, let upload = try await upload(key, of: owner) else {
      return nil
    }
    // Bytes the retention took stay gone for a later forward too: counted from the upload.
    guard !purged else { return (upload, upload.createdAt) }
    let newest = try await reading { db in
      try db.scalarInt("SELECT max(sent_at) FROM messages WHERE media_key = ? AND deleted = 0", key)
    }
    return (
      upload, newest.map { Timestamp(millisecondsSince1970: Int64($0)) } ?? upload.createdAt
    )
  }

  /// What the media sweep removes at `now`: bytes past the retention (the upload stays, so a
  /// download says 410), uploads never completed or never sent in a message after `grace`
  /// (they go whole). The rows are changed here; the service deletes the bytes. Bytes a
  /// forward sent within the retention still carries stay (API.md Part 3: shared bytes live
  /// while any message carrying them is within retention).
  func sweepMedia(now: Timestamp, retention: Duration, grace: Duration) async throws(StoreError)
    -> [MediaUpload]
  {
    let expired = (now - retention).millisecondsSince1970
    let stale = (now - grace).millisecondsSince1970
    return try await writing { db in
      let swept = try db.query(
        """
        SELECT \(Self.uploadColumns)
        FROM media_uploads u
        WHERE (complete = 1 AND purged = 0 AND created_at < ?
               AND NOT EXISTS (SELECT 1 FROM messages
                 WHERE media_key = u.media_key AND deleted = 0 AND sent_at >= ?))
           OR (created_at < ? AND (complete = 0
               OR NOT EXISTS (SELECT 1 FROM messages WHERE media_key = u.media_key)))
        ORDER BY created_at LIMIT 500
        """, expired, expired, stale
      ) { Self.mediaUpload($0) }
      for upload in swept {
        let attached =
          try db.scalarInt(
            "SELECT count(*) FROM messages WHERE media_key = ?", upload.mediaKey) ?? 0
        if upload.complete && attached > 0 {
          try db.run("UPDATE media_uploads SET purged = 1 WHERE media_key = ?", upload.mediaKey)
        } else {
          try db.run("DELETE FROM media_uploads WHERE media_key = ?", upload.mediaKey)
        }
      }
      return swept
    }
  }

  func markUploadComplete(_ key: String) async throws(StoreError) {
    try await writing { db in
      try db.run("UPDATE media_uploads SET complete = 1 WHERE media_key = ?", key)
    }
  }

  /// Forgets an upload whose bytes were refused: the device starts again with a new one.
  func dropUpload(_ key: String) async throws(StoreError) {
    try await writing { db in
      try db.run("DELETE FROM media_uploads WHERE media_key = ?", key)
    }
  }
}
