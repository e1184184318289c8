import ArgumentParsing
import ChatData
import ChatDomain
import ChatPresentation
import Foundation

/// `chat conversations`: the list, caught up from the server when it can be reached.
struct ConversationsCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "conversations",
    abstract: "List your conversations with unread counts (works offline).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await catchUpIfReachable(engine, context)
      let list: [ConversationSummary] = try await attempt { try await engine.localConversations() }
      if context.output.json {
        context.output.json(list.map(ConversationJSON.init))
      } else if list.isEmpty {
        context.output.line("No conversations yet: chat create --title T --members a,b")
      } else {
        for summary in list {
          let unread = summary.unreadCount > 0 ? " (\(summary.unreadCount) unread)" : ""
          let preview =
            summary.lastMessage.map {
              "  \($0.senderID): \(ConversationListViewModel.preview($0))"
            } ?? ""
          context.output.line("\(summary.id)  \(summary.title)\(unread)\(preview)".terminalSafe)
        }
      }
      return .success
    }
  }
}
