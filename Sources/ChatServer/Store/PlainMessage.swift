import Support

/// A new message with text and nothing else (no media, reply, forward, pushes to queue or
/// known bug): what a backend may store in one round trip (`StoreBackend.postPlainMessage`;
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

  /// The plain message `new` is, or nil when it carries anything else.
  init?(_ new: NewMessage) {
    guard new.kind == .message, !new.text.isEmpty, new.media == nil, new.replyTo == nil,
      new.forwardOf == nil, new.push == nil, new.knownBugs.isEmpty
    else { return nil }
    id = new.id
    conversationId = new.conversationId
    senderId = new.senderId
    clientMessageId = new.clientMessageId
    clientMessageKey = new.clientMessageKey
    text = new.text
    sentAtMilliseconds = Int(new.sentAt.millisecondsSince1970)
    mentionCandidates = Mentions.candidates(in: new.text, sender: new.senderId)
  }
}

/// A plain message stored: its sequence, the conversation's current members (sorted) and the
/// members its text names.
package struct PlainMessagePosted: Sendable, Equatable {
  package var sequence: Int
  package var memberIds: [String]
  package var mentions: [String]

  package init(sequence: Int, memberIds: [String], mentions: [String]) {
    self.sequence = sequence
    self.memberIds = memberIds
    self.mentions = mentions
  }
}

extension StoreBackend {
  /// No fast path: every send runs the store's rules in `write`.
  package func postPlainMessage(_ message: PlainMessage) async throws(StoreError)
    -> PlainMessagePosted?
  { nil }
}
