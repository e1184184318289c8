import ChatAPI
import SQLite
import Support

/// What a draft save came to (API.md Part 3, "Drafts, on every device of the user").
enum DraftOutcome: Sendable {
  /// Saved as the next version; the conversation as the user now sees it, for its own sockets.
  case saved(DraftSaved, ConversationItem?)
  /// `baseVersion` was not the server's: its draft (version 0, empty, when there is none).
  case conflict(Draft)
}

extension ServerStore {
  /// Saves `user`'s draft of `conversation` on `baseVersion`, the version the device last had
  /// (0 before the first save). A current member's only (a former one is 403, anyone else 404).
  /// The conversation is marked changed so the user's other devices find it in `/v1/sync`;
  /// the others' answers carry only their own drafts.
  func saveDraft(
    _ conversation: String, for user: String, text: String, replyTo: String?, baseVersion: Int,
    at now: Timestamp
  ) async throws(StoreError) -> DraftOutcome {
    try await writing { db in
      try db.lockConversation(conversation)
      _ = try Self.memberIds(db, of: conversation, actingAs: user)
      let current =
        try db.query(
          """
          SELECT text, reply_to, version, updated_at FROM drafts
          WHERE conversation_id = ? AND user_id = ?
          """, conversation, user
        ) { Self.draft(from: $0, at: 0) }.first ?? nil
      guard baseVersion == current?.version ?? 0 else {
        return .conflict(
          current ?? Draft(text: "", replyTo: nil, version: 0, updatedAt: now.rfc3339))
      }
      let version = baseVersion + 1
      try db.run(
        """
        INSERT INTO drafts (conversation_id, user_id, text, reply_to, version, updated_at)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (conversation_id, user_id) DO UPDATE SET text = excluded.text,
          reply_to = excluded.reply_to, version = excluded.version,
          updated_at = excluded.updated_at
        """, conversation, user, text, replyTo, version, now.millisecondsSince1970)
      try db.run(
        "UPDATE conversations SET \(db.dialect.markChanged) WHERE id = ?", conversation)
      let seen = try Self.conversations(db, of: user, changedAfter: nil, only: conversation)
        .items.first
      return .saved(DraftSaved(version: version, updatedAt: now.rfc3339), seen)
    }
  }

  /// A draft from four columns (`text`, `reply_to`, `version`, `updated_at` in milliseconds)
  /// starting at `index`; nil when they are NULL (no draft).
  static func draft(from row: any StoreRow, at index: Int) -> Draft? {
    guard !row.isNull(index + 2) else { return nil }
    return Draft(
      text: row.string(index), replyTo: row.optionalString(index + 1),
      version: row.int(index + 2),
      updatedAt: Timestamp(millisecondsSince1970: Int64(row.int(index + 3))).rfc3339)
  }
}
