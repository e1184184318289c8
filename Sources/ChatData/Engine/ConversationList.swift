import ChatDomain

/// The conversation list's repository: the conversations source plus the socket's state.
struct ConversationList: ConversationListRepository {
  let source: ConversationsRepository
  let live: LiveConnection

  func conversations() -> AsyncStream<[ConversationSummary]> {
    source.conversations()
  }

  func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID
  {
    try await source.create(title: title, memberIDs: memberIDs)
  }

  func search(_ query: String, limit: Int) async throws(ChatError) -> [SearchHit] {
    try await source.search(query, limit: limit)
  }

  func connectionStates() -> AsyncStream<ConnectionState> {
    live.stateStream()
  }
}
