import ArgumentParsing
import ChatData
import Foundation

/// `chat` with no command: the interactive screen against `--server`.
struct InteractiveCommand {
  func run(_ context: CommandContext) async -> ExitCode {
    guard RawTerminal.isAvailable else {
      context.output.error("the interactive screen needs a terminal; see chat --help")
      return .validationFailure
    }
    let conditions = NetworkConditions()
    return await context.withEngine(conditions: conditions) { engine throws(CommandFailure) in
      await TerminalApp(engine: engine, conditions: conditions).run()
      return .success
    }
  }
}
