import Foundation

/// The `chat` command line: global options, then a command; no command opens the interactive
/// screen.
public enum ChatTool {
  /// Every subcommand, in the order help lists them.
  static let commands: [any ChatCommand.Type] = [
    DemoCommand.self, LoginCommand.self, ConversationsCommand.self, CreateCommand.self,
    SendCommand.self, SyncCommand.self, MessagesCommand.self, SearchCommand.self,
    ReadCommand.self, ListenCommand.self, LogoutCommand.self,
  ]

  public static var help: String {
    let width = commands.map { $0.name.count }.max() ?? 0
    let list = commands.map {
      "  " + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.abstract
    }.joined(separator: "\n")
    return """
      chat: an offline-first chat client. Messages are saved on this device first and sent
      when the server can be reached; every device shows the server's order.

      USAGE: chat [global options] [<command> [options]]
             chat [global options]          (no command: the interactive screen)

      COMMANDS:
      \(list)

      \(GlobalOptions.help)

      EXIT STATUS: 0 ok, 64 usage, 65 refused input, 66 no such conversation,
                   73 local database error, 75 server unreachable (nothing lost), 77 not signed in.

      Start with: swift run chat demo
      """
  }

  static func help(for command: any ChatCommand.Type) -> String {
    """
    chat \(command.name): \(command.abstract)

    USAGE: \(command.usage)

    \(GlobalOptions.help)
    """
  }

  /// Runs the command line; returns the exit status.
  public static func main(
    arguments: [String], environment: [String: String], output: Output? = nil
  ) async -> ExitCode {
    var cursor = ArgumentCursor(arguments)
    let wantsHelp = cursor.flag("help") || arguments.contains("-h")
    let options: GlobalOptions
    do {
      options = try GlobalOptions.parse(&cursor, environment: environment)
    } catch {
      return usage(error, output: output ?? Output(json: false))
    }
    let output = output ?? Output(json: options.json)
    guard let name = cursor.nextPositional() else {
      if wantsHelp {
        output.line(help)
        return .success
      }
      do {
        try cursor.finish()
      } catch {
        return usage(error, output: output)
      }
      return await InteractiveCommand().run(
        CommandContext(options: options, environment: environment, output: output))
    }
    if name == "help" {
      if let topic = cursor.nextPositional(),
        let command = commands.first(where: { $0.name == topic })
      {
        output.line(help(for: command))
      } else {
        output.line(help)
      }
      return .success
    }
    guard let type = commands.first(where: { $0.name == name }) else {
      return usage(UsageError("unknown command '\(name)'"), output: output)
    }
    if wantsHelp {
      output.line(help(for: type))
      return .success
    }
    var commandCursor = ArgumentCursor(cursor.rest, command: type.name)
    let command: any ChatCommand
    do {
      command = try type.init(parsing: &commandCursor)
      try commandCursor.finish()
    } catch {
      return usage(error, output: output)
    }
    return await command.run(
      CommandContext(options: options, environment: environment, output: output))
  }

  private static func usage(_ error: UsageError, output: Output) -> ExitCode {
    output.error(error.message)
    if let name = error.command, let command = commands.first(where: { $0.name == name }) {
      output.note(help(for: command))
    } else {
      output.note(help)
    }
    return .usage
  }
}
