import ChatData
import ChatDomain
import Foundation

/// `chat read`: marks a conversation read up to its newest message.
struct ReadCommand: ChatCommand {
  static let name = "read"
  static let abstract = "Mark a conversation read up to its newest message."
  static let usage = "chat read <conversationId>"

  let conversation: ConversationID

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    conversation = try conversationArgument(&arguments, command: Self.name)
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let upTo: Int? = try await attempt { try await engine.markAllRead(in: conversation) }
      if context.output.json {
        context.output.json(ReadJSON(conversationId: conversation.rawValue, readUpTo: upTo ?? 0))
      } else {
        context.output.line(upTo.map { "Read up to \($0)." } ?? "Nothing to read.")
      }
      return .success
    }
  }

  struct ReadJSON: Encodable {
    let conversationId: String
    let readUpTo: Int
  }
}
