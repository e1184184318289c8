import ChatIdentifiers

/// What the screens read, each promise kept by the part that owns it: who I am, the
/// conversations, their messages, who is typing, the connection, the outbox. An app gets one from its
/// engine; a test builds one from fakes.
public struct ChatSources: Sendable {
  /// The signed-in user, to tell my messages from others'.
  public var me: UserID
  public var messages: any MessageRepository
  public var conversations: any ConversationListRepository
  public var typing: any TypingIndicators
  public var connection: any ConnectionStatus
  /// What waits to be sent: the "3 messages waiting" banner and its list.
  public var outbox: any OutboxRepository

  public init(
    me: UserID, messages: any MessageRepository, conversations: any ConversationListRepository,
    typing: any TypingIndicators, connection: any ConnectionStatus, outbox: any OutboxRepository
  ) {
    self.me = me
    self.messages = messages
    self.conversations = conversations
    self.typing = typing
    self.connection = connection
    self.outbox = outbox
  }
}
