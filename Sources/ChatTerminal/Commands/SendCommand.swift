import ArgumentParsing
import ChatData
import ChatDomain
import Foundation

/// `chat send`: saves first, then tries to deliver; a message left queued is not an error.
struct SendCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "send",
    abstract: "Send a message: saved at once, delivered now or at the next sync.",
    discussion: "A text that starts with -- goes after --: chat send <conversationId> -- --text")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(help: "The message.") var text: String

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let id: MessageID = try await attempt {
        try await engine.messages.send(text, in: conversation)
      }
      _ = await engine.drainOutbox()
      let message = try? await engine.localMessages(in: conversation, limit: 200).first {
        $0.id == id
      }
      let state: String
      switch message?.send {
      case .sent?: state = "sent"
      case .failed?: state = "failed"
      default: state = "queued"
      }
      if context.output.json {
        context.output.json(
          SendJSON(clientMessageId: id.rawValue, state: state, sequence: message?.sequence))
      } else {
        switch message?.send {
        case .sent?: context.output.line("Sent (\(message?.sequence ?? 0)).")
        case .failed(let reason)?:
          context.output.line("Refused by the server: \(reason.terminalSafe)")
        default: context.output.line("Saved; it goes out at the next sync (server unreachable).")
        }
      }
      if case .failed? = message?.send { return .dataError }
      return .success
    }
  }

  struct SendJSON: Encodable {
    let clientMessageId: String
    let state: String
    let sequence: Int?
  }
}
