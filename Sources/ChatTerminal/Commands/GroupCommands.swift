import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// `chat members`: adds and removes members (needs the server), or lists them.
struct MembersCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "members",
    abstract: "Show a conversation's members, or add and remove some (needs the server).",
    discussion:
      "Anyone in the group may add; only its creator (or, once the creator left, the member in longest) removes others. Removing yourself is leaving."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Option(
    help: ArgumentHelp("User ids to add, comma-separated.", valueName: "a,b"),
    transform: CreateCommand.memberIDs)
  var add: [UserID] = []
  @Option(
    help: ArgumentHelp("User ids to remove, comma-separated.", valueName: "c"),
    transform: CreateCommand.memberIDs)
  var remove: [UserID] = []

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      if !add.isEmpty || !remove.isEmpty {
        try await attempt {
          try await engine.conversationList.changeMembers(
            in: conversation, add: add, remove: remove)
        }
      }
      return try await reportConversation(conversation, engine: engine, context: context)
    }
  }
}

/// `chat leave`: leaves a conversation; what I saw stays, read-only.
struct LeaveCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "leave",
    abstract: "Leave a conversation (needs the server); what you saw stays, read-only.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt {
        try await engine.conversationList.changeMembers(
          in: conversation, add: [], remove: [engine.currentUserID])
      }
      return try await reportConversation(conversation, engine: engine, context: context)
    }
  }
}

/// `chat title`: renames a conversation.
struct TitleCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "title", abstract: "Rename a conversation, for everyone (needs the server).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(help: "The new title (1–200 characters).") var title: String

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt { try await engine.conversationList.rename(conversation, to: title) }
      return try await reportConversation(conversation, engine: engine, context: context)
    }
  }
}

/// Prints the conversation as this device now holds it: JSON as `chat conversations --json`,
/// or its title, where I stand and its members.
private func reportConversation(
  _ id: ConversationID, engine: ChatEngine, context: CommandContext
) async throws(CommandFailure) -> ExitCode {
  let conversations: [ConversationSummary] = try await attempt {
    try await engine.localConversations()
  }
  guard let summary = conversations.first(where: { $0.id == id }) else {
    throw CommandFailure(ChatError.notFound("conversation \(id)"))
  }
  if context.output.json {
    context.output.json(ConversationJSON(summary))
  } else {
    context.output.line("\(summary.title) (\(summary.participation.rawValue))".terminalSafe)
    context.output.line(summary.memberIDs.map(\.rawValue).joined(separator: ", "))
  }
  return .success
}
