/// The one promise the conversation screen needs: a live conversation, sending, older history,
/// marking read (seed 000 §6.3), plus who is typing and the connection for the banner.
///
/// The domain writes this promise; the data layer keeps it. The view model is tested with a
/// fake whose streams the test controls, and never learns that there are two sources or a
/// database behind it.
public protocol MessageRepository: Sendable {
  /// The signed-in user, to tell my messages from others'.
  var currentUserID: UserID { get }

  /// The conversation, sorted (server sequence; unsent last in client-ID order), re-sent on
  /// every change. Starts with what the database holds, before any network answer.
  func messages(in conversation: ConversationID) -> AsyncStream<[Message]>

  /// The conversation's title and members, re-sent on every change; nil while unknown.
  func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?>

  /// Saves the message as sending (it shows at once), then the outbox posts it.
  /// Throws only for input that can never be sent (empty, too long, unknown conversation).
  @discardableResult
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID

  /// Sends a failed message again with the same ID, at the back of the queue.
  func retry(_ id: MessageID) async

  /// Shows 50 older messages: from the database first, then from the server.
  /// Returns false at the beginning of the conversation.
  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool

  /// The newest message visible: mark read up to its sequence. Only ever raises the number, and
  /// tells the server at most every two seconds.
  func markRead(upTo sequence: Int, in conversation: ConversationID)

  /// The others typing in the conversation, re-sent on every change. Kept in memory only.
  func typingUsers(in conversation: ConversationID) -> AsyncStream<[UserID]>

  /// I am typing: tells the others, at most once every three seconds.
  func userIsTyping(in conversation: ConversationID)

  /// The live connection's state, current value first.
  func connectionStates() -> AsyncStream<ConnectionState>
}
