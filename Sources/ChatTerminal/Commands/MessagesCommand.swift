import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation

/// `chat messages`: the local view of a conversation, in display order.
struct MessagesCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "messages",
    abstract: "Show a conversation as this device holds it, in display order.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Option(
    help: ArgumentHelp("How many of the newest to show.", valueName: "N"),
    transform: Int.inRange(1...))
  var limit = 50
  @Option(
    help: ArgumentHelp(
      "Show the messages around this sequence instead (a quote's, a search hit's), asking the server for them when this device does not hold them.",
      valueName: "SEQUENCE"),
    transform: Int.inRange(1...))
  var around: Int?

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let messages: [Message] = try await attempt {
        if let around {
          return try await engine.messages(in: conversation, around: around, limit: limit)
        }
        return try await engine.localMessages(in: conversation, limit: limit)
      }
      if context.output.json {
        context.output.json(messages.map(MessageJSON.init))
      } else {
        for message in messages {
          let sequence = message.sequence.map { String($0) } ?? "-"
          let text =
            message.isFromBlockedSender && !message.isDeleted
            ? MessageRow.blockedText
            : [message.media?.label, message.text.terminalSafe].compactMap { $0 }
              .filter { !$0.isEmpty }.joined(separator: " ")
          context.output.line(
            "\(sequence)\t\(message.senderID)\t\(text)\t[\(message.statusText)]")
        }
      }
      return .success
    }
  }
}
