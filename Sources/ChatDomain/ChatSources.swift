/// What the screens read, each promise kept by the part that owns it: who I am, the
/// conversations, their messages, who is typing, the connection. An app gets one from its
/// engine; a test builds one from fakes.
public struct ChatSources: Sendable {
  /// The signed-in user, to tell my messages from others'.
  public var me: UserID
  public var messages: any MessageRepository
  public var conversations: any ConversationListRepository
  public var typing: any TypingIndicators
  public var connection: any ConnectionStatus

  public init(
    me: UserID, messages: any MessageRepository, conversations: any ConversationListRepository,
    typing: any TypingIndicators, connection: any ConnectionStatus
  ) {
    self.me = me
    self.messages = messages
    self.conversations = conversations
    self.typing = typing
    self.connection = connection
  }
}
