import ChatIdentifiers

/// Who is typing (seed 000's follow-up): socket events kept in memory, never stored.
public protocol TypingIndicators: Sendable {
  /// The others typing in the conversation, re-sent on every change.
  func typingUsers(in conversation: ConversationID) -> AsyncStream<[UserID]>

  /// I am typing: tells the others, at most once every three seconds.
  func userIsTyping(in conversation: ConversationID)
}
