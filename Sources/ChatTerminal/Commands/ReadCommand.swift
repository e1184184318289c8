import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// `chat read`: marks a conversation read up to its newest message.
struct ReadCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "read", abstract: "Mark a conversation read up to its newest message.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID

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
