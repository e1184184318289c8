import ChatData
import ChatDomain
import Foundation

/// `chat messages`: the local view of a conversation, in display order.
struct MessagesCommand: ChatCommand {
  static let name = "messages"
  static let abstract = "Show a conversation as this device holds it, in display order."
  static let usage = """
    chat messages <conversationId> [--limit N]
      --limit N     How many of the newest to show (default 50).
    """

  let conversation: ConversationID
  let limit: Int

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    let limitText = try arguments.option("limit")
    conversation = try conversationArgument(&arguments, command: Self.name)
    if let limitText {
      guard let limit = Int(limitText), limit > 0 else {
        throw UsageError("--limit must be a positive number", command: Self.name)
      }
      self.limit = limit
    } else {
      limit = 50
    }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let messages: [Message] = try await attempt {
        try await engine.localMessages(in: conversation, limit: limit)
      }
      if context.output.json {
        context.output.json(messages.map(MessageJSON.init))
      } else {
        for message in messages {
          let sequence = message.sequence.map { String($0) } ?? "-"
          context.output.line(
            "\(sequence)\t\(message.senderID)\t\(message.text.terminalSafe)\t[\(message.statusText)]"
          )
        }
      }
      return .success
    }
  }
}
