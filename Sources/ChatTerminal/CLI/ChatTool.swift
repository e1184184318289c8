import ArgumentParsing
import Foundation

/// The `chat` command line: global options, then a command; no command opens the interactive
/// screen.
public struct ChatTool: ChatCommand {
  public static let configuration = CommandConfiguration(
    commandName: "chat",
    abstract: "An offline-first chat client.",
    usage: "chat [<options>] [<subcommand> [<options>]]",
    discussion: """
      Messages are saved on this device first and sent when the server can be reached; every
      device shows the server's order. With no subcommand, chat opens the interactive screen.
      The global options may come before or after the subcommand's name.

      EXIT STATUS: 0 ok, 64 usage, 65 refused input, 66 no such conversation,
                   73 local database error, 75 server unreachable (nothing lost), 77 not signed in.

      Start with: swift run chat demo
      """,
    subcommands: [
      DemoCommand.self, LoginCommand.self, ConversationsCommand.self, CreateCommand.self,
      SendCommand.self, DownloadCommand.self, AutoDownloadCommand.self, EditCommand.self,
      DeleteCommand.self, ReplyCommand.self, ForwardCommand.self, ReactCommand.self,
      PinCommand.self, DraftCommand.self,
      MembersCommand.self, BlockCommand.self, UnblockCommand.self, BlockedCommand.self,
      LeaveCommand.self, TitleCommand.self, MuteCommand.self, SyncCommand.self,
      MessagesCommand.self, SearchCommand.self,
      ReadCommand.self, ListenCommand.self, OutboxCommand.self, RetentionCommand.self,
      DoctorCommand.self,
      LogoutCommand.self,
    ])

  @OptionGroup(title: "GLOBAL OPTIONS") public var options: GlobalOptions

  public init() {}

  public func run(_ context: CommandContext) async -> ExitCode {
    await InteractiveCommand().run(context)
  }

  /// Runs the command line; returns the exit status. Help goes to standard output; a usage
  /// error is one line (`chat: error: …`, or JSON with `--json`) and the help of the command
  /// on standard error, exit status 64.
  public static func main(
    arguments: [String], environment: [String: String], output: Output? = nil
  ) async -> ExitCode {
    let parsed: any ParsableCommand
    do {
      parsed = try parseAsRoot(arguments, environment: environment)
    } catch {
      // The options were not parsed: `--json` anywhere before `--` asks for a JSON error.
      let json = arguments.prefix { $0 != "--" }.contains("--json")
      let output = output ?? Output(json: json)
      let code = exitCode(for: error)
      if code.isSuccess {
        output.line(fullMessage(for: error))
      } else {
        output.error(message(for: error))
        output.note(helpMessage(relevantTo: error))
      }
      return code
    }
    // Every subcommand is a `ChatCommand`.
    let command = parsed as! any ChatCommand
    let output = output ?? Output(json: command.options.json)
    return await command.run(
      CommandContext(options: command.options, environment: environment, output: output))
  }
}
