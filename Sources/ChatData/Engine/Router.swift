import ChatDomain

/// Routes each socket frame by its `type` to the repository that owns it.
final class Router: @unchecked Sendable {
  // @unchecked: `typing` is set once during the engine's initialisation, before any frame.
  let messages: MessagesRepository
  let receipts: ReceiptsRepository
  let conversations: ConversationsRepository
  var typing: TypingRepository?
  let log: any LogSink

  init(
    messages: MessagesRepository, receipts: ReceiptsRepository,
    conversations: ConversationsRepository, log: any LogSink
  ) {
    self.messages = messages
    self.receipts = receipts
    self.conversations = conversations
    self.log = log
  }

  func route(_ frame: String) async {
    guard let event = LiveEventDTO.decode(frame) else {
      log.write(LogRecord(.warning, "live.unreadable_frame", [("bytes", "\(frame.utf8.count)")]))
      return
    }
    switch event {
    case .message(_, let message):
      await messages.receive(message)
      if let conversation = ConversationID(rawValue: message.conversationId),
        let sender = UserID(rawValue: message.senderId)
      {
        await typing?.messageArrived(from: sender, in: conversation)
      }
    case .receipt(let conversation, let user, let delivered, let read):
      await receipts.receive(
        conversationID: conversation, userID: user, deliveredUpTo: delivered, readUpTo: read)
    case .typing(let conversation, let user):
      await typing?.receive(conversationID: conversation, userID: user)
    case .conversation(let conversation):
      await conversations.receive(conversation)
    case .unknown(let type):
      log.write(LogRecord(.debug, "live.unknown_event", [("type", type)]))
    }
  }
}
