/// The conversation list's promise: a second reader of the same database (seed 000 §11).
public protocol ConversationListRepository: Sendable {
  /// My conversations, newest activity first, with unread counts; re-sent on every change.
  func conversations() -> AsyncStream<[ConversationSummary]>

  /// One conversation's title, members and unread count, re-sent on every change; nil while
  /// this device does not know it.
  func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?>

  /// Creates a conversation on the server (this needs the network) and saves it.
  func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID

  /// Searches the messages on this device, newest first. Works offline.
  func search(_ query: String, limit: Int) async throws(ChatError) -> [SearchHit]
}
