/// The conversation list's promise: a second reader of the same database (seed 000 §11).
public protocol ConversationListRepository: Sendable {
  /// My conversations, newest activity first, with unread counts; re-sent on every change.
  func conversations() -> AsyncStream<[ConversationSummary]>

  /// Creates a conversation on the server (this needs the network) and saves it.
  func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID

  /// Searches the messages on this device, newest first. Works offline.
  func search(_ query: String, limit: Int) async throws(ChatError) -> [SearchHit]

  /// The live connection's state, current value first.
  func connectionStates() -> AsyncStream<ConnectionState>
}
