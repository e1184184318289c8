import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// `chat mute`: mutes a conversation on all my devices (needs the server).
struct MuteCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "mute",
    abstract: "Mute a conversation on all your devices, or unmute it (needs the server).",
    discussion:
      "A muted conversation is dimmed in the list and outside its total unread count; a message that mentions you still pushes unless --silent-mentions. Give one of --until, --forever, --off; an RFC 3339 time, e.g. 2026-12-24T08:00:00Z."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Option(
    help: ArgumentHelp("Muted until this time (RFC 3339).", valueName: "TIME"),
    transform: MuteCommand.time)
  var until: Date?
  @Flag(help: "Muted for good.") var forever = false
  @Flag(help: "Not muted any more.") var off = false
  @Flag(help: "While muted, a message that mentions you is silent too (by default it pushes).")
  var silentMentions = false

  @Sendable static func time(_ text: String) throws -> Date {
    guard let time = Timestamp(rfc3339: text) else {
      throw ValidationError("an RFC 3339 time, e.g. 2026-12-24T08:00:00Z")
    }
    return time.date
  }

  func validate() throws {
    let chosen = [until != nil, forever, off].filter { $0 }.count
    guard chosen == 1 else { throw ValidationError("give one of --until TIME, --forever, --off") }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    let until = forever ? Date.distantFuture : off ? nil : self.until
    return await context.withEngine { engine throws(CommandFailure) in
      try await attempt {
        try await engine.conversationList.mute(
          conversation, until: until, mentionsPush: !silentMentions)
      }
      if context.output.json {
        context.output.json(
          MuteJSON(
            conversationId: conversation.rawValue,
            mutedUntil: Nullable(
              until.map { $0 == .distantFuture ? "forever" : MessageJSON.format($0) }),
            mutedMentions: silentMentions ? "silent" : "push"))
      } else {
        context.output.line(
          until == nil
            ? "Not muted."
            : until == .distantFuture
              ? "Muted for good." : "Muted until \(MessageJSON.format(until!)).")
      }
      return .success
    }
  }

  struct MuteJSON: Encodable {
    let conversationId: String
    /// A time, `forever`, or null when not muted.
    let mutedUntil: Nullable<String>
    /// `push` (a mention pushes through the mute) or `silent`.
    let mutedMentions: String
  }
}
