import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation

/// `chat send`: saves first, then tries to deliver; a message left queued is not an error.
/// With `--photo` or `--file` the text is the caption: the photo is compressed on this device,
/// the bytes go to the object store (progress on a terminal), then the message.
struct SendCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "send",
    abstract: "Send a message, a photo or a document: saved at once, delivered now or later.",
    discussion: """
      A text that starts with -- goes after --: chat send <conversationId> -- --text
      With --photo (JPEG or PNG) or --file, the text is an optional caption. A photo is
      compressed here (at most 1,600 px, about 200 KB, no metadata); a document goes as it is
      (at most 100 MiB). An upload cut short resumes at the next send or sync.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(help: "The message, or the caption of a photo or document.") var text = ""
  @Option(help: ArgumentHelp("A photo to send (JPEG or PNG).", valueName: "PATH"))
  var photo: String?
  @Option(help: ArgumentHelp("A document to send, as it is.", valueName: "PATH"))
  var file: String?

  func run(_ context: CommandContext) async -> ExitCode {
    let attachment: Attachment?
    switch (photo, file) {
    case (let photo?, nil): attachment = .photo(path: photo)
    case (nil, let file?): attachment = .file(path: file)
    case (nil, nil): attachment = nil
    case (_?, _?):
      return context.report(.usage(ValidationError("give --photo or --file, not both")))
    }
    return await Self.send(text, attachment, replyTo: nil, in: conversation, context)
  }

  /// Saves a message (or a reply to `replyTo`, or a forward of `forward`), sends what waits,
  /// and says where it stands: `chat send`, `chat reply` and `chat forward`.
  static func send(
    _ text: String, _ attachment: Attachment?, replyTo: MessageID?,
    forward: (message: MessageID, source: ConversationID)? = nil,
    in conversation: ConversationID, _ context: CommandContext
  ) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let id = try await Self.save(
        text, attachment, replyTo: replyTo, forward: forward, in: conversation, engine)
      let watcher =
        attachment == nil ? nil : Self.showUpload(of: id, engine, conversation, context.output)
      _ = await engine.drainOutbox()
      watcher?.cancel()
      context.output.endProgress()
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
        default:
          let waiting = await OutboxCommand.entries(engine.outboxQueue).first { $0.id == id }
          context.output.line(
            "Saved; it goes out at the next sync (\(Self.why(waiting?.lastError)))."
          )
        }
      }
      if case .failed? = message?.send { return .dataError }
      return .success
    }
  }

  /// Saves the message. A conversation this device does not hold yet (created elsewhere a
  /// moment ago, never synced here) is looked up first: a sync, then the save again; only a
  /// conversation the server does not list either is "not found", and one that cannot be looked
  /// up says so (exit 75: nothing was saved, try again online).
  private static func save(
    _ text: String, _ attachment: Attachment?, replyTo: MessageID?,
    forward: (message: MessageID, source: ConversationID)?, in conversation: ConversationID,
    _ engine: ChatEngine
  ) async throws(CommandFailure) -> MessageID {
    func save() async throws(ChatError) -> MessageID {
      if let forward {
        return try await engine.messages.forward(
          forward.message, from: forward.source, to: conversation)
      }
      if let attachment {
        return try await engine.media.send(attachment, caption: text, in: conversation)
      }
      if let replyTo {
        return try await engine.messages.reply(text, to: replyTo, in: conversation)
      }
      return try await engine.messages.send(text, in: conversation)
    }
    do {
      return try await save()
    } catch .notFound {
      do {
        _ = try await engine.sync()
      } catch {
        throw .failed(
          error,
          "conversation \(conversation) is not on this device yet, and the server could not be "
            + "asked for it (\(error.description)): nothing was saved; try again when online")
      }
      return try await attempt { try await save() }
    } catch {
      throw CommandFailure(error)
    }
  }

  /// Why a saved message is still waiting, from its outbox row's last error label: a server
  /// that answered is never called unreachable.
  static func why(_ lastError: String?) -> String {
    switch lastError {
    case "offline"?, nil: "server unreachable"
    case "timeout"?: "the server did not answer in time"
    case "tls_failed"?: "the server could not be trusted"
    case let label? where label.hasPrefix("status_"):
      "the server answered \(label.dropFirst("status_".count)): busy or unavailable for now"
    case let label?: "the server answered \(label)"
    }
  }

  /// Shows the upload's progress (on a terminal) as the store records it.
  private static func showUpload(
    of id: MessageID, _ engine: ChatEngine, _ conversation: ConversationID, _ output: Output
  ) -> Task<Void, Never> {
    let updates = engine.messages.messages(in: conversation)
    return Task {
      for await messages in updates {
        guard let media = messages.first(where: { $0.id == id })?.media,
          let sent = media.uploadedBytes
        else { continue }
        output.progress("Uploading: \(ByteCount.text(sent)) of \(ByteCount.text(media.byteCount))")
      }
    }
  }

  struct SendJSON: Encodable {
    let clientMessageId: String
    let state: String
    let sequence: Int?
  }
}

/// `chat reply`: answers a message with a quote of it; saved at once, delivered now or later.
struct ReplyCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "reply",
    abstract: "Reply to a message, quoting it: saved at once, delivered now or later.",
    discussion: """
      The quote shows the message as it is now on every device (edited, or deleted), and
      nothing of it to a member who cannot see it. A text that starts with -- goes after --.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp(
      "The message answered (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID
  @Argument(help: "The reply.") var text: String

  func run(_ context: CommandContext) async -> ExitCode {
    await SendCommand.send(text, nil, replyTo: message, in: conversation, context)
  }
}

/// `chat forward`: forwards a message held here into another conversation, as `chat send` does.
struct ForwardCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "forward",
    abstract: "Forward a message (its text, photo or document) to another conversation.",
    discussion:
      "The copy says it was forwarded and carries nothing of its sender or conversation; a photo or document is not uploaded again. Saved at once, sent now or at the next sync."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation the message is in.", valueName: "fromConversationId"),
    transform: conversationID)
  var source: ConversationID
  @Argument(
    help: ArgumentHelp("The message (from `chat messages --json`).", valueName: "clientMessageId"),
    transform: messageID)
  var message: MessageID
  @Argument(
    help: ArgumentHelp("The conversation to forward it to.", valueName: "toConversationId"),
    transform: conversationID)
  var conversation: ConversationID

  func run(_ context: CommandContext) async -> ExitCode {
    await SendCommand.send(
      "", nil, replyTo: nil, forward: (message, source), in: conversation, context)
  }
}
