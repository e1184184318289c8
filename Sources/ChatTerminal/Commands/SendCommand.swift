import ArgumentParsing
import ChatData
import ChatDomain
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
    return await context.withEngine { engine throws(CommandFailure) in
      let id: MessageID = try await attempt {
        if let attachment {
          try await engine.media.send(attachment, caption: text, in: conversation)
        } else {
          try await engine.messages.send(text, in: conversation)
        }
      }
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
        default: context.output.line("Saved; it goes out at the next sync (server unreachable).")
        }
      }
      if case .failed? = message?.send { return .dataError }
      return .success
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

/// `chat download`: the full bytes of a photo or document, checked against the sender's
/// sha256; a download cut short resumes where it stopped.
struct DownloadCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "download",
    abstract: "Fetch a message's photo or document (resumed if cut; its sha256 checked).",
    discussion: """
      The bytes are kept in the media folder beside the database; --out copies them to PATH
      as well. Prints where they are.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The conversation.", valueName: "conversationId"),
    transform: conversationID)
  var conversation: ConversationID
  @Argument(
    help: ArgumentHelp("The message.", valueName: "clientMessageId"), transform: messageID)
  var message: MessageID
  @Option(help: ArgumentHelp("Also copy the bytes to this file.", valueName: "PATH"))
  var out: String?

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let output = context.output
      let path: String
      do {
        path = try await engine.media.download(message, in: conversation) { held, total in
          output.progress("Downloading: \(ByteCount.text(held)) of \(ByteCount.text(total))")
        }
      } catch {
        output.endProgress()
        throw CommandFailure(error)
      }
      output.endProgress()
      var written = path
      if let out {
        do {
          if FileManager.default.fileExists(atPath: out) {
            try FileManager.default.removeItem(atPath: out)
          }
          try FileManager.default.copyItem(atPath: path, toPath: out)
          written = out
        } catch {
          throw .failed(.invalidInput("cannot write \(out)"), "cannot write \(out): \(error)")
        }
      }
      if output.json {
        output.json(["path": written])
      } else {
        output.line(written)
      }
      return .success
    }
  }
}

/// `chat auto-download`: whether others' photos and documents download by themselves while
/// `chat` runs (the screen, `listen`), kept on this device.
struct AutoDownloadCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "auto-download",
    abstract:
      "Show or set whether others' media download by themselves (always, unmetered, never).",
    discussion: """
      With no setting, prints the current one. unmetered waits while the network is metered
      (Linux cannot tell, so there it means always). Otherwise `chat download` fetches on demand.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp(
      "always, unmetered or never; left out, the setting is shown.", valueName: "setting"))
  var setting = ""

  func validate() throws {
    guard setting.isEmpty || MediaAutoDownload(rawValue: setting) != nil else {
      throw ValidationError("the setting must be one of always, unmetered, never")
    }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      if let setting = MediaAutoDownload(rawValue: setting) {
        try await attempt { try await engine.media.setAutoDownload(setting) }
      }
      let current = await engine.media.autoDownload()
      if context.output.json {
        context.output.json(["autoDownload": current.rawValue])
      } else {
        context.output.line("Automatic downloads: \(current.rawValue).")
      }
      return .success
    }
  }
}
