import Support

/// A new message with text and nothing else (no media, reply, forward or known bug), with
/// its pushes when a gateway is set: what a backend may store in one round trip (`StoreBackend.postPlainMessage`;
/// PostgreSQL's `chat_post_message`), the send's fast path.
package struct PlainMessage: Sendable {
  package var id: String
  package var conversationId: String
  package var senderId: String
  package var clientMessageId: String
  package var clientMessageKey: String
  package var text: String
  package var sentAtMilliseconds: Int
  /// Whom the text names (`Mentions.candidates`): the store keeps the current members.
  package var mentionCandidates: [String]
  /// Its pushes to queue (`ServerStore.queuePushes`), nil when pushes are off.
  package var push: PlainPush?

  /// The plain message `new` is, or nil when it carries anything else.
  init?(_ new: NewMessage) {
    guard new.kind == .message, !new.text.isEmpty, new.media == nil, new.replyTo == nil,
      new.forwardOf == nil, new.knownBugs.isEmpty
    else { return nil }
    id = new.id
    conversationId = new.conversationId
    senderId = new.senderId
    clientMessageId = new.clientMessageId
    clientMessageKey = new.clientMessageKey
    text = new.text
    sentAtMilliseconds = Int(new.sentAt.millisecondsSince1970)
    mentionCandidates = Mentions.candidates(in: new.text, sender: new.senderId)
    push = new.push.map { request in
      let skipping = request.skipping.sorted { ($0.userId, $0.deviceId) < ($1.userId, $1.deviceId) }
      return PlainPush(
        now: new.sentAt.rfc3339, windowMilliseconds: Int(request.window.milliseconds),
        skippingUsers: skipping.map(\.userId), skippingDevices: skipping.map(\.deviceId))
    }
  }
}

/// What queuing a plain message's pushes needs: now (mute times compare with it as text), the
/// collapse window, and the devices that hear the message live (no push for them).
package struct PlainPush: Sendable {
  package var now: String
  package var windowMilliseconds: Int
  package var skippingUsers: [String]
  package var skippingDevices: [String]
}

/// A plain message stored: its sequence, the conversation's current members (sorted), the
/// members its text names, and of its pushes how many collapsed into one already owed and the
/// earliest due time (wall-clock milliseconds; nil when none was queued).
package struct PlainMessagePosted: Sendable, Equatable {
  package var sequence: Int
  package var memberIds: [String]
  package var mentions: [String]
  package var pushesCollapsed = 0
  package var earliestPushDue: Int64?

  package init(
    sequence: Int, memberIds: [String], mentions: [String], pushesCollapsed: Int = 0,
    earliestPushDue: Int64? = nil
  ) {
    self.sequence = sequence
    self.memberIds = memberIds
    self.mentions = mentions
    self.pushesCollapsed = pushesCollapsed
    self.earliestPushDue = earliestPushDue
  }
}

extension StoreBackend {
  /// No fast path: every send runs the store's rules in `write`.
  package func postPlainMessage(_ message: PlainMessage) async throws(StoreError)
    -> PlainMessagePosted?
  { nil }
}
