import ChatAPI
import SQLite
import Support

/// An item to store (a message, an edit or a delete), as the service parsed it.
struct NewMessage: Sendable {
  /// The server id to give it, should it be new.
  var id: String
  var conversationId: String
  var senderId: String
  /// As the client spelled it: echoed back unchanged.
  var clientMessageId: String
  /// Its lowercase form: the idempotency key, with the conversation and the sender.
  var clientMessageKey: String
  var text: String
  var sentAt: Timestamp
  var kind: ItemKind = .message
  /// An edit's or delete's target: the clientMessageId as the client spelled it, and its
  /// lowercase form (the sender's key of the message it changes).
  var target: (id: String, key: String)? = nil
  /// A message's media: the key of a completed upload of the sender's, as API.md's Media.
  var media: Media? = nil
  /// A reaction's emoji (checked by the store, after membership), and whether it takes the
  /// emoji back.
  var emoji: String? = nil
  var remove = false
  /// The message a message answers: its clientMessageId as the client spelled it, and its
  /// lowercase form.
  var replyTo: (id: String, key: String)? = nil
  /// Who is owed a push for a new message, when the service hands pushes to a gateway.
  var push: PushQueueRequest? = nil
  /// Test-only: the known server bugs put back (`ServerKnownBugs`) that live in the store's
  /// rules: `acceptBlockedPosts`, `deleteDropsSharedMedia`.
  var knownBugs: ServerKnownBugs = []
  /// A forward (API.md Part 3): the message copied, by its conversation and client message
  /// key; `text` and `media` are taken from it in the store's transaction.
  var forwardOf: (conversationId: String, key: String)? = nil

  /// How a forward names its source in `messages.forwarded_from`.
  var forwardedFrom: String? { forwardOf.map { "\($0.conversationId)/\($0.key)" } }
}

/// What the service knows that the store needs to queue pushes: the devices with a socket
/// open (they hear the message live), and the collapse window.
struct PushQueueRequest: Sendable {
  var skipping: Set<DeviceKey>
  var window: Duration
}

/// What storing an item did.
struct SendOutcome: Sendable {
  var message: Item
  /// False when the same sender had already sent this clientMessageId (a retry).
  var isNew: Bool
  /// The conversation's members, sorted: who hears of it.
  var memberIds: [String]
  /// A new delete of a message with media: the media key whose bytes go now.
  var droppedMediaKey: String? = nil
  /// The pushes a new message queued.
  var pushes = PushQueueing()
  /// A new reply: the members who cannot see what it answers, whose copy has no quote.
  var quoteHiddenFrom: [String] = []
}

extension ServerStore {
  /// Stores an item: in one savepoint of a group commit, checks membership (404), the
  /// idempotency key (a retry: the stored item; the same key with another body: 409), the
  /// item's own rules (an edit or delete: the target is the caller's own message, else 403 for
  /// someone else's and 422 for none, one not a message or one deleted; text: 422 when
  /// empty), then takes the next sequence number and raises the sender's own receipt numbers
  /// to it. An edit rewrites its message's text and `editedAt`; a delete erases the text of the
  /// message and of its edits, forgets its media (the upload keeps only what the sweep needs),
  /// and leaves the tombstone. What the files still hold of the old text goes in the erasure
  /// that follows (`SQLiteStoreBackend+Erasure.swift`; a VACUUM on PostgreSQL).
  func send(_ new: NewMessage) async throws(StoreError) -> SendOutcome {
    if let plain = PlainMessage(new), let posted = try await backend.postPlainMessage(plain) {
      return SendOutcome(
        message: Self.storedItem(new, sequence: posted.sequence, mentions: posted.mentions),
        isNew: true, memberIds: posted.memberIds,
        pushes: PushQueueing(
          collapsed: posted.pushesCollapsed, earliestDue: posted.earliestPushDue))
    }
    let outcome = try await writing { db in try Self.store(new, in: db) }
    if outcome.isNew && (new.kind == .delete || new.kind == .edit) {
      await backend.textWasReplaced()
    }
    return outcome
  }

  private static func store(_ posted: NewMessage, in db: any StoreDatabase) throws -> SendOutcome {
    var new = posted
    try db.lockConversation(new.conversationId)
    let (members, isMember) = try memberIds(
      db, of: new.conversationId, formerAllowed: new.senderId)
    let existing = try item(
      db, in: new.conversationId, from: new.senderId, key: new.clientMessageKey)
    if let existing,
      isRetry(of: existing.item, with: new, targetKey: existing.targetKey)
        || (new.forwardOf != nil && existing.forwardedFrom == new.forwardedFrom)
    {
      let stored = try hidingQuotes([existing.item], from: new.senderId, in: db)
      return SendOutcome(
        message: stored.first ?? existing.item, isNew: false, memberIds: members)
    }
    // A former member's retry is answered above; anything new from it is refused.
    guard isMember else { throw StoreError.formerMember }
    // A retry is answered above too, blocked since or not (API.md: a retry is the stored item).
    if !new.knownBugs.contains(.acceptBlockedPosts),
      try isBlockedOneToOne(members: members, sender: new.senderId, db)
    {
      throw StoreError.notAllowed("The recipient blocked you: this message is not sent.")
    }
    // API.md's precedence: the item's own 403 and 422 come before the key's 409.
    var target: Item?
    var reaction: (target: Int, reactions: [ReactionGroup])?
    var pinTarget: Int?
    var reply: RepliedMessage?
    switch new.kind {
    case .message:
      if new.replyTo != nil { reply = try replied(new, members: members, in: db) }
      if let source = new.forwardOf {
        (new.text, new.media) = try forwarded(source, by: new.senderId, db)
      } else if let media = new.media {
        try checkMedia(media, of: new, in: db)
      } else if new.text.isEmpty {
        throw StoreError.invalid("A message needs some text.")
      }
    case .edit, .delete:
      target = try changedMessage(new, in: db)
      // An edit of a message with media may be empty: the caption goes.
      if new.kind == .edit && new.text.isEmpty && target?.media == nil {
        throw StoreError.invalid("An edit needs some text.")
      }
    case .reaction:
      reaction = try reacted(new, in: db)
    case .pin:
      pinTarget = try pinned(new, in: db)
    case .members, .title:
      throw StoreError.malformed("kind must be message, edit, delete, reaction or pin here.")
    }
    if existing != nil {
      throw StoreError.keyReused
    }
    // A message's mentions, from its text and the members now; an edit's, for its message.
    let mentions =
      [.message, .edit].contains(new.kind)
      ? Mentions.find(in: new.text, members: Set(members), sender: new.senderId) : []
    let lastSequence =
      try db.scalarInt("SELECT last_sequence FROM conversations WHERE id = ?", new.conversationId)
      ?? 0
    let sequence = lastSequence + 1
    let sentAt = new.sentAt.millisecondsSince1970
    let mediaJSON = try new.media.map { String(decoding: try APICoding.encode($0), as: UTF8.self) }
    try db.run(
      """
      INSERT INTO messages (conversation_id, sequence, id, sender_id, client_message_id,
                            client_message_key, text, sent_at, kind, target_id, target_key,
                            media, media_key, emoji, reaction_remove, mentions, reply_to_id,
                            reply_to_sequence, media_kind, forwarded_from)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """, new.conversationId, sequence, new.id, new.senderId, new.clientMessageId,
      new.clientMessageKey, [.delete, .reaction, .pin].contains(new.kind) ? "" : new.text,
      sentAt, new.kind.rawValue, new.target?.id, new.target?.key, mediaJSON, new.media?.key,
      new.kind == .reaction ? new.emoji : nil,
      [.reaction, .pin].contains(new.kind) && new.remove ? 1 : 0,
      new.kind == .message && !mentions.isEmpty ? mentions.joined(separator: ",") : nil,
      reply.map { _ in new.replyTo?.id }, reply?.quote.sequence, new.media?.kind.rawValue,
      new.forwardedFrom)
    if let reaction {
      try storeReactions(reaction.reactions, of: reaction.target, in: new.conversationId, db)
    }
    if let pinTarget {
      try storePin(
        of: pinTarget, by: sequence, remove: new.remove, in: new.conversationId, db)
    }
    var droppedMediaKey: String?
    if let target, let key = new.target?.key {
      if new.kind == .edit {
        try db.run(
          """
          UPDATE messages SET text = ?, edited_at = ?, mentions = ?
          WHERE conversation_id = ? AND sequence = ?
          """, new.text, sentAt, mentions.isEmpty ? nil : mentions.joined(separator: ","),
          new.conversationId, target.sequence)
      } else {
        // A delete drops the media too: the row forgets it, the service deletes the bytes,
        // and the upload keeps its key, owner and dates alone; no message names it now, so
        // the media sweep removes it whole (and the bytes again, should that delete fail).
        // Unless a forward (or the message forwarded) still carries the key: then the bytes
        // and the upload stay for it.
        droppedMediaKey = target.media?.key
        try db.run(
          """
          UPDATE messages SET text = '', deleted = 1, media = NULL, media_key = NULL,
            reactions = NULL, mentions = NULL, media_kind = NULL, pinned_at = NULL
          WHERE conversation_id = ? AND sequence = ?
          """, new.conversationId, target.sequence)
        if let key = droppedMediaKey, !new.knownBugs.contains(.deleteDropsSharedMedia),
          try mediaStillCarried(key, db)
        {
          droppedMediaKey = nil
        }
        if let droppedMediaKey {
          try db.run(
            """
            UPDATE media_uploads SET content_type = '', byte_count = 0, sha256 = '',
              file_name = NULL
            WHERE media_key = ?
            """, droppedMediaKey)
        }
        try db.run(
          """
          UPDATE messages SET text = '' WHERE conversation_id = ? AND sender_id = ?
            AND target_key = ? AND kind = 'edit'
          """, new.conversationId, new.senderId, key)
      }
    }
    // An edit or delete changes the list (its lastMessage may be the target) but is not new
    // activity: only a message moves the conversation up the list.
    try db.run(
      """
      UPDATE conversations
      SET last_sequence = ?, \(db.dialect.markChanged),
          last_activity_at = CASE WHEN ? THEN ? ELSE last_activity_at END,
          last_message_sequence = CASE WHEN ? THEN ? ELSE last_message_sequence END
      WHERE id = ?
      """, sequence, new.kind == .message, sentAt, new.kind == .message, sequence,
      new.conversationId)
    // Every stored number is at most the old last sequence, so both rise to the new one.
    try db.run(
      """
      UPDATE members SET delivered_up_to = ?, read_up_to = ?
      WHERE conversation_id = ? AND user_id = ?
      """, sequence, sequence, new.conversationId, new.senderId)
    let stored = storedItem(new, sequence: sequence, mentions: mentions, reply: reply)
    var pushes = PushQueueing()
    if new.kind == .message, let push = new.push {
      pushes = try queuePushes(
        of: sequence, in: new.conversationId, from: new.senderId, mentioning: mentions,
        skipping: push.skipping,
        at: new.sentAt, window: push.window, in: db)
    }
    return SendOutcome(
      message: stored, isNew: true, memberIds: members, droppedMediaKey: droppedMediaKey,
      pushes: pushes, quoteHiddenFrom: reply?.hiddenFrom ?? [])
  }

  /// What was just written, without reading it back: a new message is unedited and has no
  /// reactions, and an edit, delete or reaction carries no state of its own.
  private static func storedItem(
    _ new: NewMessage, sequence: Int, mentions: [String], reply: RepliedMessage? = nil
  ) -> Item {
    Item(
      id: new.id, clientMessageId: new.clientMessageId, conversationId: new.conversationId,
      senderId: new.senderId,
      text: [.delete, .reaction, .pin].contains(new.kind) ? "" : new.text,
      sequence: sequence,
      sentAt: Timestamp(millisecondsSince1970: new.sentAt.millisecondsSince1970).rfc3339,
      kind: new.kind, media: new.media, deleted: false, target: new.target?.id,
      reactions: new.kind == .message ? [] : nil,
      replyTo: reply.flatMap { reply in
        new.replyTo.map { ReplyTo(clientMessageId: $0.id, quote: reply.quote) }
      },
      mentions: new.kind == .message ? mentions : nil,
      forwarded: new.kind == .message ? new.forwardOf != nil : nil,
      emoji: new.kind == .reaction ? new.emoji : nil,
      remove: [.reaction, .pin].contains(new.kind) ? new.remove : nil)
  }

  /// A message's media is a completed upload of its sender's, described as it was uploaded,
  /// and carried by no other message (else 422).
  private static func checkMedia(_ media: Media, of new: NewMessage, in db: any StoreDatabase)
    throws
  {
    let upload = try db.query(
      """
      SELECT kind, content_type, byte_count, sha256, file_name FROM media_uploads
      WHERE media_key = ? AND owner_id = ? AND complete = 1
      """, media.key, new.senderId
    ) { row in
      (row.string(0), row.string(1), row.int(2), row.string(3), row.optionalString(4))
    }.first
    guard let upload else {
      throw StoreError.invalid("media.key must be a completed upload of yours.")
    }
    guard upload.0 == media.kind.rawValue, upload.1 == media.contentType,
      upload.2 == media.byteCount, upload.3 == media.sha256.lowercased(),
      upload.4 == media.fileName
    else {
      throw StoreError.invalid(
        "media must describe the upload as it was made: kind, contentType, byteCount, sha256, "
          + "fileName.")
    }
    // Another message: the message itself (a retry with other media is the key's 409).
    let carried =
      try db.scalarInt(
        """
        SELECT count(*) FROM messages WHERE media_key = ?
          AND NOT (conversation_id = ? AND sender_id = ? AND client_message_key = ?)
        """, media.key, new.conversationId, new.senderId, new.clientMessageKey) ?? 0
    guard carried == 0 else {
      throw StoreError.invalid("This media was already sent in another message.")
    }
  }

  /// Whether `new` repeats the stored item: the same kind and target, and the same text byte
  /// for byte (`String ==` would call two normalisations of one text equal). A message that was
  /// edited or deleted, or an edit whose message was deleted, no longer holds the text it was
  /// posted with: any retry of it is answered with what it is now.
  private static func isRetry(of stored: Item, with new: NewMessage, targetKey: String?) -> Bool {
    guard stored.kind == new.kind, targetKey == new.target?.key else { return false }
    switch new.kind {
    case .message:
      guard stored.replyTo?.clientMessageId.lowercased() == new.replyTo?.key else {
        return false
      }
      if stored.editedAt != nil || stored.deleted == true { return true }
      return stored.text.utf8.elementsEqual(new.text.utf8) && stored.media == new.media
    case .edit:
      return stored.text.isEmpty || stored.text.utf8.elementsEqual(new.text.utf8)
    case .reaction:
      return stored.emoji?.utf8.elementsEqual((new.emoji ?? "").utf8) == true
        && stored.remove == new.remove
    case .pin:
      return stored.remove == new.remove
    case .delete, .members, .title:
      return true
    }
  }

  /// The message an edit or delete changes: the caller's own, not deleted (else 403 or 422).
  private static func changedMessage(_ new: NewMessage, in db: any StoreDatabase) throws -> Item {
    guard let key = new.target?.key else {
      throw StoreError.malformed(
        "An edit or delete needs target: the message's clientMessageId.")
    }
    guard let target = try item(db, in: new.conversationId, from: new.senderId, key: key) else {
      let othersMessage = try db.scalarInt(
        """
        SELECT count(*) FROM messages
        WHERE conversation_id = ? AND client_message_key = ? AND kind = 'message'
        """, new.conversationId, key)
      if (othersMessage ?? 0) > 0 {
        throw StoreError.notAllowed("Only its sender may edit or delete a message.")
      }
      throw StoreError.invalid("The target is not a message of this conversation.")
    }
    guard target.item.kind == .message else {
      throw StoreError.invalid("The target is not a message of this conversation.")
    }
    guard target.item.deleted != true else {
      throw StoreError.invalid("The target was deleted.")
    }
    return target.item
  }

  /// The item `sender` posted with `key` in `conversation`, and its target's key.
  private static func item(
    _ db: any StoreDatabase, in conversation: String, from sender: String, key: String
  ) throws -> (item: Item, targetKey: String?, forwardedFrom: String?)? {
    try db.query(
      """
      SELECT \(messageColumns(table: "messages")), messages.target_key, messages.forwarded_from
      FROM messages
      WHERE conversation_id = ? AND sender_id = ? AND client_message_key = ?
      """, conversation, sender, key
    ) { row in
      (
        message(from: row, at: 0), row.optionalString(itemColumnCount),
        row.optionalString(itemColumnCount + 1)
      )
    }.first
  }

  /// A page of the items `user` can see (a former member: what it saw), ascending by
  /// sequence: the `limit` just above `after`, the `limit` just below `before`, or the newest
  /// `limit`; paging skips what `user` cannot see. Checks membership (404) before the query's
  /// ranges (422), as API.md orders them.
  func messages(
    in conversation: String, visibleTo user: String, query: MessageQuery
  ) async throws(StoreError) -> ItemPage {
    try await reading { db in
      guard let standing = try Self.standing(db, of: conversation, user: user) else {
        throw StoreError.notAMember
      }
      try query.validate()
      let columns = Self.messageColumns(table: "messages")
      let visible = standing.visibilityCondition
      if let around = query.around {
        return try Self.page(around: around, in: conversation, standing: standing, db, query.limit)
      }
      if let after = query.after {
        let rows = try db.query(
          """
          SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence > ?
            AND \(visible.sql)
          ORDER BY sequence LIMIT ?
          """, values: [conversation, after] + visible.values + [query.limit + 1]
        ) { Self.message(from: $0, at: 0) }
        return ItemPage(
          items: Self.hidingQuotes(Array(rows.prefix(query.limit)), from: standing),
          hasMore: rows.count > query.limit)
      }
      let rows = try db.query(
        """
        SELECT \(columns) FROM messages WHERE conversation_id = ? AND sequence < ?
          AND \(visible.sql)
        ORDER BY sequence DESC LIMIT ?
        """, values: [conversation, query.before ?? Int.max] + visible.values + [query.limit + 1]
      ) { Self.message(from: $0, at: 0) }
      return ItemPage(
        items: Self.hidingQuotes(Array(rows.prefix(query.limit).reversed()), from: standing),
        hasMore: rows.count > query.limit)
    }
  }
}
