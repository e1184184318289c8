import ChatAPI
import SQLite
import Support

/// A device, as push tokens and live sockets know it.
struct DeviceKey: Sendable, Hashable {
  var userId: String
  var deviceId: String
}

/// A push that is due: the newest message owed to one device in one conversation, and where
/// to send it.
struct OwedPush: Sendable, Equatable {
  var userId: String
  var deviceId: String
  var conversationId: String
  var sequence: Int
  var provider: PushProvider
  var token: String
  /// Failed attempts in a row before this one.
  var attempts: Int
  /// What the device is told: built when the push leaves, from the message as it is then.
  var payload: PushPayload

  var device: DeviceKey { DeviceKey(userId: userId, deviceId: deviceId) }
}

/// What happened to a push the gateway was handed.
enum PushResult: Sendable, Equatable {
  /// Delivered at this wall-clock millisecond: the next push of its conversation waits for
  /// the collapse window.
  case sent(at: Int64)
  /// Not delivered, to be tried again at this wall-clock millisecond.
  case retry(at: Int64)
  /// The gateway said the token is gone (410): it is forgotten, with what it was owed.
  case tokenGone
  /// Not sent and not to be sent (the gateway refused it, the device has a socket open now, or
  /// the attempts ran out): nothing is owed any more.
  case dropped
}

/// What storing a message queued for push.
struct PushQueueing: Sendable, Equatable {
  /// Devices already owed one for this conversation: the new message replaced it.
  var collapsed = 0
  /// The earliest wall-clock millisecond a push queued here may go.
  var earliestDue: Int64?
}

extension ServerStore {
  /// `PUT /v1/devices/me/push`: the device's token, replacing the one it had. A token belongs
  /// to one device of one user: the same token held by another (user, device), a phone that
  /// changed hands without signing out, is forgotten there, so the new user never sees the old
  /// one's notifications.
  func registerPush(_ registration: PushRegistration, for device: DeviceKey)
    async throws(StoreError)
  {
    try await writing { db in
      let others = try db.query(
        """
        SELECT user_id, device_id FROM push_tokens
        WHERE provider = ? AND token = ? AND NOT (user_id = ? AND device_id = ?)
        ORDER BY user_id, device_id
        """, registration.provider.rawValue, registration.token, device.userId, device.deviceId
      ) { DeviceKey(userId: $0.string(0), deviceId: $0.string(1)) }
      for other in others { try Self.forgetToken(of: other, in: db) }
      try db.run(
        """
        INSERT INTO push_tokens (user_id, device_id, provider, token) VALUES (?, ?, ?, ?)
        ON CONFLICT (user_id, device_id) DO UPDATE
          SET provider = excluded.provider, token = excluded.token
        """, device.userId, device.deviceId, registration.provider.rawValue, registration.token)
    }
  }

  /// `DELETE /v1/devices/me/push`: the device gets no push any more, not even one owed.
  func removePush(for device: DeviceKey) async throws(StoreError) {
    try await writing { db in try Self.forgetToken(of: device, in: db) }
  }

  private static func forgetToken(of device: DeviceKey, in db: any StoreDatabase) throws {
    try db.run(
      "DELETE FROM push_tokens WHERE user_id = ? AND device_id = ?", device.userId,
      device.deviceId)
    try db.run(
      "DELETE FROM push_queue WHERE user_id = ? AND device_id = ?", device.userId,
      device.deviceId)
  }

  /// Queues a push of message `sequence` for every device of the other members with a token,
  /// except those in `skipping` (a socket is open), members who muted the conversation, and
  /// members who blocked the sender (API.md Part 3: never a push for a blocked user's message):
  /// inside the message's own savepoint, so the push is owed exactly when the message is
  /// stored. A device already owed one for the conversation has it replaced (the newest wins,
  /// and keeps the time it was due); one that got a push less than `window` ago waits for the
  /// window's end; any other may be pushed at once.
  static func queuePushes(
    of sequence: Int, in conversation: String, from sender: String, mentioning: [String],
    skipping: Set<DeviceKey>, at now: Timestamp, window: Duration, in db: any StoreDatabase
  ) throws -> PushQueueing {
    // Read what each device is owed only once no push of it can change meanwhile: on
    // PostgreSQL the dispatcher leases and finishes rows in transactions of their own, and a
    // lease read before it was written would be overwritten below (a push 7 ms after the last
    // one, seen in a CI run of the contract suite on PostgreSQL).
    try db.lockPushQueue(of: conversation)
    let targets = try db.query(
      """
      SELECT t.user_id, t.device_id, q.sequence, q.last_sent_at, q.due_at
      FROM members AS m
      JOIN push_tokens AS t ON t.user_id = m.user_id
      LEFT JOIN push_queue AS q ON q.user_id = t.user_id AND q.device_id = t.device_id
        AND q.conversation_id = m.conversation_id
      WHERE m.conversation_id = ? AND m.membership = 'member' AND m.user_id != ?
        AND NOT EXISTS (SELECT 1 FROM blocks AS b WHERE b.user_id = m.user_id
                          AND b.blocked_id = ?)
        AND (\(unmuted("m")) OR (m.muted_mentions = 'push' AND m.user_id IN (\(
          mentioning.isEmpty ? "NULL" : mentioning.map { _ in "?" }.joined(separator: ", ")))))
      ORDER BY t.user_id, t.device_id
      """, values: [conversation, sender, sender, now.rfc3339] + mentioning
    ) { row in
      (
        device: DeviceKey(userId: row.string(0), deviceId: row.string(1)),
        owed: row.isNull(2) ? nil : row.int(2),
        lastSent: row.isNull(3) ? nil : Int64(row.int(3)), due: row.isNull(4) ? nil : row.int(4)
      )
    }
    var queueing = PushQueueing()
    let nowMS = now.millisecondsSince1970
    for target in targets where !skipping.contains(target.device) {
      let due: Int64
      if target.owed != nil, let pending = target.due {
        due = Int64(pending)
        queueing.collapsed += 1
      } else {
        due = max(nowMS, (target.lastSent ?? Int64.min / 2) + window.milliseconds)
      }
      try db.run(
        """
        INSERT INTO push_queue (user_id, device_id, conversation_id, sequence, due_at)
        VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (user_id, device_id, conversation_id) DO UPDATE
          SET sequence = excluded.sequence, due_at = excluded.due_at
        """, target.device.userId, target.device.deviceId, conversation, sequence, due)
      queueing.earliestDue = min(queueing.earliestDue ?? due, due)
    }
    return queueing
  }

  /// The SQL condition "the member row `alias` is not muted now" (the one value it binds is
  /// now, in RFC 3339: stored mute times are in the same form, so they compare as text).
  private static func unmuted(_ alias: String) -> String {
    "(\(alias).muted_until IS NULL OR (\(alias).muted_until != 'forever' AND \(alias).muted_until <= ?))"
  }

  /// Takes up to `limit` pushes due at `now`, oldest first, each with its payload as of now,
  /// and leases them: each is due again `lease` later, should the server stop before its
  /// result is saved (`finishPush`). A push whose message was deleted since, or whose member
  /// left or muted the conversation, is owed no more and not returned.
  func takeDuePushes(at now: Timestamp, limit: Int, lease: Duration) async throws(StoreError)
    -> [OwedPush]
  {
    try await writing { db in
      let nowMS = now.millisecondsSince1970
      let rows = try db.query(
        """
        SELECT q.user_id, q.device_id, q.conversation_id, q.sequence, q.attempts,
               t.provider, t.token
        FROM push_queue AS q
        JOIN push_tokens AS t ON t.user_id = q.user_id AND t.device_id = q.device_id
        WHERE q.sequence IS NOT NULL AND q.due_at <= ?
        ORDER BY q.due_at, q.user_id, q.device_id, q.conversation_id
        LIMIT ? \(db.dialect.lockingSkippingLocked("q"))
        """, nowMS, limit
      ) { row in
        (
          device: DeviceKey(userId: row.string(0), deviceId: row.string(1)),
          conversation: row.string(2), sequence: row.int(3), attempts: row.int(4),
          provider: PushProvider(rawValue: row.string(5)) ?? .webhook, token: row.string(6)
        )
      }
      var owed: [OwedPush] = []
      for row in rows {
        guard
          let payload = try Self.payload(
            of: row.sequence, in: row.conversation, for: row.device.userId, at: now, in: db)
        else {
          try Self.clear(row.device, row.conversation, in: db)
          continue
        }
        try db.run(
          """
          UPDATE push_queue SET due_at = ?
          WHERE user_id = ? AND device_id = ? AND conversation_id = ?
          """, nowMS + lease.milliseconds, row.device.userId, row.device.deviceId,
          row.conversation)
        owed.append(
          OwedPush(
            userId: row.device.userId, deviceId: row.device.deviceId,
            conversationId: row.conversation, sequence: row.sequence, provider: row.provider,
            token: row.token, attempts: row.attempts, payload: payload))
      }
      // What was sent longer than a window ago and owes nothing says nothing any more.
      try db.run(
        "DELETE FROM push_queue WHERE sequence IS NULL AND coalesce(last_sent_at, 0) < ?",
        nowMS - lease.milliseconds)
      return owed
    }
  }

  /// The wall-clock millisecond the next owed push is due, if any.
  func nextPushDue() async throws(StoreError) -> Int64? {
    try await reading { db in
      try db.scalarInt("SELECT min(due_at) FROM push_queue WHERE sequence IS NOT NULL")
        .map(Int64.init)
    }
  }

  /// Saves what became of a push taken by `takeDuePushes`. A newer message owed meanwhile
  /// stays owed: after a delivery it is due at the end of the collapse window.
  func finishPush(_ push: OwedPush, _ result: PushResult, at now: Int64, window: Duration)
    async throws(StoreError)
  {
    try await writing { db in
      let key: [any SQLBindable] = [push.userId, push.deviceId, push.conversationId]
      switch result {
      case .sent(let at):
        try db.run(
          """
          UPDATE push_queue
          SET sequence = CASE WHEN sequence = ? THEN NULL ELSE sequence END,
              last_sent_at = ?, due_at = ?, attempts = 0
          WHERE user_id = ? AND device_id = ? AND conversation_id = ?
          """, values: [push.sequence, at, at + window.milliseconds] + key)
      case .retry(let at):
        try db.run(
          """
          UPDATE push_queue SET due_at = ?, attempts = attempts + 1
          WHERE user_id = ? AND device_id = ? AND conversation_id = ?
          """, values: [at] + key)
      case .tokenGone:
        // Only the token the gateway refused: the device may have registered a new one since,
        // and then what it is owed goes to that one.
        let current = try db.query(
          "SELECT token FROM push_tokens WHERE user_id = ? AND device_id = ?", push.userId,
          push.deviceId
        ) { $0.string(0) }.first
        if current == push.token {
          try Self.forgetToken(of: push.device, in: db)
        } else {
          try Self.clearOrReschedule(push, at: now, window: window, in: db)
        }
      case .dropped:
        try Self.clearOrReschedule(push, at: now, window: window, in: db)
      }
    }
  }

  /// A push that will not go: owed no more, unless a newer message came meanwhile (the row is
  /// leased while a push is out), which is then due as it would have been, with fresh attempts.
  private static func clearOrReschedule(
    _ push: OwedPush, at now: Int64, window: Duration, in db: any StoreDatabase
  ) throws {
    try db.run(
      """
      UPDATE push_queue
      SET sequence = CASE WHEN sequence = ? THEN NULL ELSE sequence END, attempts = 0,
          due_at = CASE WHEN ? > coalesce(last_sent_at, 0) + ? THEN ?
                        ELSE coalesce(last_sent_at, 0) + ? END
      WHERE user_id = ? AND device_id = ? AND conversation_id = ?
      """, push.sequence, now, window.milliseconds, now, window.milliseconds, push.userId,
      push.deviceId, push.conversationId)
  }

  private static func clear(_ device: DeviceKey, _ conversation: String, in db: any StoreDatabase)
    throws
  {
    try db.run(
      """
      UPDATE push_queue SET sequence = NULL, attempts = 0
      WHERE user_id = ? AND device_id = ? AND conversation_id = ?
      """, device.userId, device.deviceId, conversation)
  }

  /// API.md's payload of message `sequence` for `user`, or nil when it is owed no push any
  /// more: the message is gone or deleted, or `user` left or muted the conversation (unless
  /// it mentions `user` and the mute lets mentions push: Part 3). The title is the
  /// conversation's (the sender's id when it has none), the body "<sender>: <text>" cut to
  /// 100 characters (a photo, a document by name; "<sender> mentioned you: <text>" when it
  /// mentions `user`), the badge the unread messages of the user's unmuted conversations.
  static func payload(
    of sequence: Int, in conversation: String, for user: String, at now: Timestamp,
    in db: any StoreDatabase
  ) throws -> PushPayload? {
    let mentionsUser =
      "(m.mentions IS NOT NULL AND "
      + db.dialect.contains("',' || m.mentions || ','", "',' || me.user_id || ','") + ")"
    let found = try db.query(
      """
      SELECT m.sender_id, m.text, m.media, c.title,
             CASE WHEN \(mentionsUser) THEN 1 ELSE 0 END
      FROM messages AS m
      JOIN conversations AS c ON c.id = m.conversation_id
      JOIN members AS me ON me.conversation_id = m.conversation_id AND me.user_id = ?
      WHERE m.conversation_id = ? AND m.sequence = ? AND m.kind = 'message' AND m.deleted = 0
        AND me.membership = 'member'
        AND (\(unmuted("me")) OR (me.muted_mentions = 'push' AND \(mentionsUser)))
      """, user, conversation, sequence, now.rfc3339
    ) { row in
      (
        sender: row.string(0), text: row.string(1),
        media: row.optionalString(2).flatMap { try? APICoding.decode(Media.self, from: $0) },
        title: row.string(3), mentioned: row.int(4) != 0
      )
    }.first
    guard let found else { return nil }
    // Counted inside the group commit's transaction: bounded, so a user with a huge backlog
    // cannot hold every write up (a badge shows "9999" then).
    let badge =
      try db.scalarInt(
        """
        SELECT count(*) FROM (
          SELECT 1 FROM members AS me
          JOIN messages AS m ON m.conversation_id = me.conversation_id
          WHERE me.user_id = ? AND me.membership = 'member' AND \(unmuted("me"))
            AND m.kind = 'message' AND m.deleted = 0 AND m.sender_id != me.user_id
            AND m.sequence > me.read_up_to
            AND m.sequence >= (SELECT max(first_sequence) FROM member_ranges AS r
                               WHERE r.conversation_id = me.conversation_id
                                 AND r.user_id = me.user_id)
          LIMIT \(maxBadge)) AS unread
        """, user, now.rfc3339) ?? 0
    return PushPayload(
      aps: PushPayload.APS(
        alert: PushPayload.Alert(
          title: found.title.isEmpty ? found.sender : found.title,
          body: (found.mentioned ? "\(found.sender) mentioned you: " : "\(found.sender): ")
            + preview(text: found.text, media: found.media)),
        badge: badge, threadId: conversation),
      conversationId: conversation, sequence: sequence)
  }

  /// What a notification says of a message: its text cut to `previewLength` characters (the
  /// last one "…" when cut), or what its media is.
  static func preview(text: String, media: Media?) -> String {
    if let media {
      switch media.kind {
      case .image: return "📷 Photo"
      case .file: return "📎 \(media.fileName ?? "File")"
      }
    }
    guard text.count > previewLength else { return text }
    return String(text.prefix(previewLength - 1)) + "…"
  }

  /// The largest badge counted.
  static let maxBadge = 9_999

  /// API.md: a push shows at most 100 characters of the text.
  static let previewLength = 100
}
