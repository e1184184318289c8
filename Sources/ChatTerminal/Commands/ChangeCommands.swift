import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// `chat edit`: changes one of my messages for everyone; saved at once, sent now or at the next
/// sync.
struct EditCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "edit",
    abstract:
      "Edit one of your messages for everyone: saved at once, sent now or at the next sync.",
    discussion:
      "A message not sent yet is changed before it goes. A text that starts with -- goes after --.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp("The message (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID
  @Argument(help: "The new text.") var text: String

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt { try await engine.messages.edit(message, in: conversation, to: text) }
      return await reportChange(
        "Edited", of: message, in: conversation, engine: engine, context: context)
    }
  }
}

/// `chat delete`: deletes one of my messages for everyone.
struct DeleteCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete one of your messages for everyone: gone here at once, then everywhere.",
    discussion: "A message not sent yet never reaches the server.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp("The message (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt { try await engine.messages.delete(message, in: conversation) }
      return await reportChange(
        "Deleted", of: message, in: conversation, engine: engine, context: context)
    }
  }
}

/// `chat react`: puts an emoji on a message (anyone's), or takes mine back.
struct ReactCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "react",
    abstract:
      "React to a message with one emoji, or take your reaction back: saved at once, sent now or at the next sync.",
    discussion:
      "Adding one you already have, or removing one you have not, changes nothing and sends nothing."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp("The message (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID
  @Argument(help: "One emoji, e.g. 👍.") var emoji: String
  @Flag(help: "Take your reaction back.") var remove = false

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt {
        try await engine.messages.react(emoji, to: message, in: conversation, remove: remove)
      }
      return await reportChange(
        remove ? "Reaction taken back" : "Reacted", of: message, in: conversation,
        engine: engine, context: context)
    }
  }
}

/// `chat pin`: pins a message (anyone's) for everyone in the conversation, or unpins it.
struct PinCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "pin",
    abstract:
      "Pin a message for everyone in the conversation, or unpin it: saved at once, sent now or at the next sync.",
    discussion:
      "At most 10 messages of a conversation are pinned. Pinning a pinned message, or unpinning one that is not, changes nothing and sends nothing. `chat conversations --json` lists each conversation's pins."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp("The message (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID
  @Flag(help: "Unpin it.") var remove = false

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt {
        try await engine.messages.pin(message, in: conversation, remove: remove)
      }
      return await reportChange(
        remove ? "Unpinned" : "Pinned", of: message, in: conversation, engine: engine,
        context: context)
    }
  }
}

/// `chat draft`: saves what I am writing in a conversation as my draft, on every device of mine.
struct DraftCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "draft",
    abstract:
      "Save a draft in a conversation, shown on every device of yours: saved at once, sent now or at the next sync.",
    discussion:
      "An empty text clears it, as sending a message there does. `chat conversations --json` shows each conversation's draft."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(help: "The draft's text (\"\" clears it).") var text: String
  @Option(
    name: .customLong("reply-to"),
    help: ArgumentHelp("The message it answers.", valueName: "clientMessageId"),
    transform: messageID)
  var replyTo: MessageID?

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await attempt {
        try await engine.messages.saveDraft(text, replyTo: replyTo, in: conversation)
      }
      let owed = await engine.sendOwedDrafts()
      if context.output.json {
        context.output.json(DraftStateJSON(state: owed == 0 ? "sent" : "queued"))
      } else {
        context.output.line(
          owed == 0 ? "Draft saved." : "Draft saved here; it goes out at the next sync.")
      }
      return .success
    }
  }
}

struct DraftStateJSON: Encodable {
  /// `sent` or `queued`.
  let state: String
}

/// Sends what waits, then says what the server has: `sent` when nothing is left in the outbox,
/// else `queued` (it goes at the next sync). JSON: the message as `chat messages --json` shows
/// it (absent once an unsent message was deleted), with the state.
private func reportChange(
  _ done: String, of id: MessageID, in conversation: ConversationID, engine: ChatEngine,
  context: CommandContext
) async -> ExitCode {
  let left = await engine.drainOutbox()
  let message = try? await engine.localMessages(in: conversation, limit: 200).first {
    $0.id == id
  }
  let state = left == 0 ? "sent" : "queued"
  if context.output.json {
    context.output.json(
      ChangeJSON(state: state, message: Nullable(message.map(MessageJSON.init))))
  } else if left == 0 {
    context.output.line("\(done).")
  } else {
    context.output.line(
      "\(done) here; it goes out at the next sync (\(left) waiting, server unreachable).")
  }
  return .success
}

struct ChangeJSON: Encodable {
  /// `sent` or `queued`.
  let state: String
  /// Null once an unsent message was deleted.
  let message: Nullable<MessageJSON>
}
