import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation

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
