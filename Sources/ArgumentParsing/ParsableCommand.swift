import Foundation

/// A command: a `ParsableArguments` type with a name, a help text, perhaps subcommands, and a
/// `run()` that does the work (the shape of swift-argument-parser's `AsyncParsableCommand`).
///
/// `main()` parses the process's command line, runs the command it names and exits: 0 when
/// `run()` returns, 64 for a usage error (the message and the help, or a hint to `--help`, on
/// standard error), the code of an `ExitCode` that `run()` throws, 1 for any other error.
/// `-h` and `--help` anywhere before `--` print the help of the command named so far on
/// standard output, as does `help <subcommand>` when there are subcommands.
public protocol ParsableCommand: ParsableArguments {
  static var configuration: CommandConfiguration { get }

  /// Does the work. Throw `ExitCode` to end with a status of your choice after printing the
  /// reason yourself, or `ValidationError` for a usage error found late.
  mutating func run() async throws
}

extension ParsableCommand {
  public static var configuration: CommandConfiguration { CommandConfiguration() }

  /// Without a `run()` of its own, a command with subcommands needs one of them (a usage
  /// error), and one without only prints its help.
  public mutating func run() async throws {
    if Self.configuration.subcommands.isEmpty { throw CleanExit.helpRequest(Self.self) }
    throw ValidationError("missing <subcommand>")
  }

  /// Parses `arguments` (default: the process's, without the program name) following
  /// subcommand names, and returns the command to run, filled.
  public static func parseAsRoot(
    _ arguments: [String]? = nil, environment: [String: String]? = nil
  ) throws -> any ParsableCommand {
    let parser = CommandParser(
      root: self, environment: environment ?? ProcessInfo.processInfo.environment,
      followsSubcommands: true)
    // Every type on a command path is a command: subcommands are `ParsableCommand` types.
    return try parser.parse(arguments ?? Array(CommandLine.arguments.dropFirst()))
      as! any ParsableCommand
  }

  /// The help of `subcommand` (a command anywhere below this one), or of this command.
  public static func helpMessage(for subcommand: (any ParsableCommand.Type)? = nil) -> String {
    HelpText(path: path(to: subcommand)).render()
  }

  /// Parses the process's command line, runs the command, and exits. On the main actor, as a
  /// program's entry point is, so `run()` runs on the main thread.
  @MainActor
  public static func main() async {
    await main(nil, environment: nil)
  }

  /// Parses `arguments` and `environment` (nil: the process's), runs the command, and exits.
  @MainActor
  public static func main(_ arguments: [String]?, environment: [String: String]?) async {
    var command: any ParsableCommand
    do {
      command = try parseAsRoot(arguments, environment: environment)
    } catch {
      exit(withError: error)
    }
    do {
      try await command.run()
    } catch let error as ValidationError {
      exit(withError: CommandError(.usage(error.message), path: path(to: type(of: command))))
    } catch {
      exit(withError: error)
    }
    Foundation.exit(ExitCode.success.rawValue)
  }

  /// Prints what `fullMessage(for:)` says about `error` (help and clean exits on standard
  /// output, the rest on standard error) and exits with `exitCode(for:)`; nil exits with 0.
  public static func exit(withError error: (any Error)? = nil) -> Never {
    guard let error else { Foundation.exit(ExitCode.success.rawValue) }
    let code = exitCode(for: error)
    let text = fullMessage(for: error)
    if !text.isEmpty {
      let handle = code.isSuccess ? FileHandle.standardOutput : FileHandle.standardError
      handle.write(Data((text + "\n").utf8))
    }
    Foundation.exit(code.rawValue)
  }
}
