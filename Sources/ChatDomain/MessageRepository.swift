import ChatIdentifiers

/// The one promise the conversation screen needs (seed 000 §6.3): a live conversation, sending,
/// older history, marking read.
///
/// The domain writes this promise; the data layer keeps it. The view model is tested with a
/// fake whose streams the test controls, and never learns that there are two sources or a
/// database behind it. Who is typing and the connection are promises of their own
/// (`TypingIndicators`, `ConnectionStatus`).
public protocol MessageRepository: Sendable {
  /// The conversation, sorted (server sequence; unsent last in client-ID order), re-sent on
  /// every change. Starts with what the database holds, before any network answer.
  func messages(in conversation: ConversationID) -> AsyncStream<[Message]>

  /// Saves the message as sending (it shows at once), then the outbox posts it.
  /// Throws only for input that can never be sent (empty, too long, unknown conversation).
  @discardableResult
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID

  /// Saves my reply to a message of the conversation as `send` does: it shows at once with a
  /// quote of that message (as it is now, on every device). Throws also for a message that is
  /// not here or was deleted.
  @discardableResult
  func reply(_ text: String, to target: MessageID, in conversation: ConversationID)
    async throws(ChatError) -> MessageID

  /// Forwards a message held here (anyone's, sent and not deleted) into another conversation
  /// of mine, as `send` does: a copy of its text and media, marked forwarded, with nothing of
  /// its sender or conversation (API.md Part 3). Nothing is uploaded again. Works offline.
  @discardableResult
  func forward(_ message: MessageID, from source: ConversationID, to conversation: ConversationID)
    async throws(ChatError) -> MessageID

  /// Saves what I am typing in the conversation (and the message it answers) as my draft: on
  /// this device at once, then on every device of mine (API.md Part 3). Sending a message
  /// clears it. Throws for a text that could never be sent, or a database that cannot save.
  func saveDraft(_ text: String, replyTo: MessageID?, in conversation: ConversationID)
    async throws(ChatError)

  /// Edits my message for everyone (it shows at once). A message still unsent is changed in
  /// place; once its post has started, the edit is sent after it. Throws for a text that can
  /// never be sent, a message that is not mine here, or one that was deleted.
  func edit(_ id: MessageID, in conversation: ConversationID, to text: String)
    async throws(ChatError)

  /// Deletes my message for everyone: at once here (text and search index), then on the
  /// server. A message still unsent never reaches the server. Throws for a message that is
  /// not mine here, or one already deleted.
  func delete(_ id: MessageID, in conversation: ConversationID) async throws(ChatError)

  /// Adds my reaction (one emoji) to a message of the conversation, or takes it back with
  /// `remove` (API.md Part 3): it shows at once and is sent in order. Toggled again while
  /// unsent, nothing is sent at all. Throws for something that is not one emoji, a message
  /// that is not here or was deleted, or a conversation I left.
  func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, remove: Bool
  ) async throws(ChatError)

  /// Pins a message of the conversation (anyone's), or unpins it with `remove` (API.md
  /// Part 3): the conversation's `pinned` shows it at once and it is sent in order. Undone
  /// while unsent, nothing is sent at all. Throws for a message that is not here or was
  /// deleted, a conversation I left, or a pin past the tenth.
  func pin(_ target: MessageID, in conversation: ConversationID, remove: Bool)
    async throws(ChatError)

  /// Sends a failed message again with the same ID, at the back of the queue.
  func retry(_ id: MessageID) async

  /// Shows 50 older messages: from the database first, then from the server.
  /// Returns false at the beginning of the conversation.
  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool

  /// Shows the conversation centred on `sequence` (a quote, a search hit, the first unread):
  /// from the database when it holds it, else after one page from the server around it. The
  /// next value of `messages(in:)` is that window; `loadOlder` widens it; `showNewest` goes back.
  func open(at sequence: Int, in conversation: ConversationID) async throws(ChatError)

  /// Back to the newest messages after `open(at:)`.
  func showNewest(in conversation: ConversationID) async

  /// The newest message visible: mark read up to its sequence. Only ever raises the number, and
  /// tells the server at most every two seconds.
  func markRead(upTo sequence: Int, in conversation: ConversationID)
}
