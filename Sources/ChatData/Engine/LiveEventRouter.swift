import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// Routes each socket frame by its `type` to the repository that owns it.
final class LiveEventRouter: Sendable {
  let messages: MessagesRepository
  let receipts: ReceiptsRepository
  let conversations: ConversationsRepository
  let typing: TypingRepository
  let log: any LogSink

  init(
    messages: MessagesRepository, receipts: ReceiptsRepository,
    conversations: ConversationsRepository, typing: TypingRepository, log: any LogSink
  ) {
    self.messages = messages
    self.receipts = receipts
    self.conversations = conversations
    self.typing = typing
    self.log = log
  }

  func route(_ frame: String) async {
    let event: LiveEvent
    do {
      event = try APICoding.decode(LiveEvent.self, from: frame)
    } catch {
      log.write(LogRecord(.warning, "live.unreadable_frame", [("bytes", "\(frame.utf8.count)")]))
      return
    }
    switch event {
    case .message(_, let message):
      await messages.receive(message)
      if let conversation = ConversationID(rawValue: message.conversationId),
        let sender = UserID(rawValue: message.senderId)
      {
        await typing.messageArrived(from: sender, in: conversation)
      }
    case .receipt(let conversation, let member):
      await receipts.receive(conversationID: conversation, member)
    case .receipts(let conversation, let members):
      for member in members { await receipts.receive(conversationID: conversation, member) }
    case .typing(let conversation, let user):
      await typing.receive(conversationID: conversation, userID: user)
    case .conversation(let conversation):
      await conversations.receive(conversation)
    case .blocked(let users):
      await conversations.receiveBlocked(users)
    case .unknown(let type):
      log.write(LogRecord(.debug, "live.unknown_event", [("type", type)]))
    }
  }
}
