import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// `chat create`: creates a conversation (needs the server).
struct CreateCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Create a conversation with other members (needs the server).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Option(help: ArgumentHelp("The conversation's name.", valueName: "TITLE")) var title: String
  @Option(
    help: ArgumentHelp(
      "Comma-separated user ids (you are added yourself); up to 255.", valueName: "ID[,ID…]"),
    transform: CreateCommand.memberIDs)
  var members: [UserID]

  @Sendable static func memberIDs(_ text: String) throws -> [UserID] {
    var ids: [UserID] = []
    for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
    where !part.isEmpty {
      guard let id = UserID(rawValue: part) else {
        throw ValidationError("user ids separated by commas ('\(part)' is not one)")
      }
      ids.append(id)
    }
    return ids
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let id: ConversationID = try await attempt {
        try await engine.conversationList.createConversation(title: title, memberIDs: members)
      }
      if context.output.json {
        context.output.json(["id": id.rawValue, "title": title])
      } else {
        context.output.line(id.rawValue)
      }
      return .success
    }
  }
}
