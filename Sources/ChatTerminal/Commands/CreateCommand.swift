import ChatData
import ChatDomain
import Foundation

/// `chat create`: creates a conversation (needs the server).
struct CreateCommand: ChatCommand {
  static let name = "create"
  static let abstract = "Create a conversation with other members (needs the server)."
  static let usage = """
    chat create --title TITLE --members ID[,ID…]
      --title TITLE     The conversation's name.
      --members IDS     Comma-separated user ids (you are added yourself); up to 255.
    """

  let title: String
  let members: [UserID]

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    guard let title = try arguments.option("title") else {
      throw UsageError("missing --title", command: Self.name)
    }
    guard let members = try arguments.option("members") else {
      throw UsageError("missing --members", command: Self.name)
    }
    var ids: [UserID] = []
    for text in members.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
    where !text.isEmpty {
      guard let id = UserID(rawValue: text) else {
        throw UsageError("'\(text)' is not a user id", command: Self.name)
      }
      ids.append(id)
    }
    self.title = title
    self.members = ids
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
