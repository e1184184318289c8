import Foundation

/// A type whose stored properties are command-line options, flags and positional arguments,
/// declared with `@Option`, `@Flag`, `@Argument` and `@OptionGroup` (the shape of
/// swift-argument-parser's protocol of the same name, which cannot be fetched here).
///
/// Parsing makes a value with `init()`, finds the wrapped properties with `Mirror` (in
/// declaration order, which is also the order of positional arguments), fills each one from
/// the command line, else from its environment variable, else from its default, and then calls
/// `validate()`: first on every option group, then on the value itself.
///
/// ## Topics
///
/// - ``parse(_:environment:)``: the pure entry point, for tests and for types used alone.
/// - ``message(for:)``, ``fullMessage(for:)``, ``exitCode(for:)``: what to print, and the
///   status, for an error `parse` threw.
public protocol ParsableArguments: SendableMetatype {
  init()

  /// Checks the parsed values together. A `ValidationError` thrown here is a usage error:
  /// its message is printed with the help, and the exit status is 64.
  mutating func validate() throws
}

extension ParsableArguments {
  public mutating func validate() throws {}

  /// Parses `arguments` (without the program name) with `environment` for the environment
  /// twins; each defaults to the process's own. Subcommand names are not followed: see
  /// `ParsableCommand.parseAsRoot(_:environment:)`.
  ///
  /// - Throws: a usage error or a help request; print it with `message(for:)` or
  ///   `fullMessage(for:)` and end with `exitCode(for:)`.
  public static func parse(
    _ arguments: [String]? = nil, environment: [String: String]? = nil
  ) throws -> Self {
    let parser = CommandParser(
      root: self, environment: environment ?? ProcessInfo.processInfo.environment,
      followsSubcommands: false)
    // Without subcommands the parser returns the root type it was given.
    return try parser.parse(arguments ?? Array(CommandLine.arguments.dropFirst())) as! Self
  }

  /// The help text of this type (or of a command, with its options and subcommands).
  public static func helpMessage() -> String {
    HelpText(path: [self]).render()
  }

  /// The one-line message of a usage error, the help text of a help request, or the
  /// description of any other error.
  public static func message(for error: any Error) -> String {
    switch error {
    case let error as CommandError:
      switch error.reason {
      case .helpRequested: return HelpText(path: error.path).render()
      case .usage(let message): return message
      }
    case let error as CleanExit:
      switch error {
      case .helpRequest(let command): return HelpText(path: path(to: command)).render()
      case .message(let message): return message
      }
    case is ExitCode: return ""
    default: return String(describing: error)
    }
  }

  /// What a tool prints for `error`: for a usage error, `name: message` and then the help of
  /// the command it is about, or a hint to `--help` (see `CommandConfiguration.usageErrorHelp`);
  /// for a help request, the help; for another error, `name: description`.
  public static func fullMessage(for error: any Error) -> String {
    let name = HelpText.name(of: self)
    switch error {
    case let error as CommandError:
      guard case .usage(let message) = error.reason else { return self.message(for: error) }
      let help = HelpText(path: error.path)
      switch rootConfiguration.usageErrorHelp {
      case .fullHelp: return "\(name): \(message)\n\n\(help.render())"
      case .hint: return "\(name): \(message)\n\(help.hint)"
      }
    case let error as ValidationError:
      return fullMessage(for: CommandError(.usage(error.message), path: [self]))
    case is CleanExit, is ExitCode: return message(for: error)
    default: return "\(name): \(error)"
    }
  }

  /// 0 for a help request or a clean exit, 64 (`EX_USAGE`) for a usage error, the code itself
  /// for an `ExitCode`, 1 for anything else.
  public static func exitCode(for error: any Error) -> ExitCode {
    switch error {
    case let error as CommandError:
      if case .helpRequested = error.reason { return .success }
      return .validationFailure
    case is ValidationError: return .validationFailure
    case let code as ExitCode: return code
    case is CleanExit: return .success
    default: return .failure
    }
  }

  /// The help of the command a usage error or help request is about (this type's own for any
  /// other error): what a tool that prints its errors itself shows under the message.
  public static func helpMessage(relevantTo error: any Error) -> String {
    guard let error = error as? CommandError else { return helpMessage() }
    return HelpText(path: error.path).render()
  }

  static var rootConfiguration: CommandConfiguration {
    (self as? any ParsableCommand.Type)?.configuration ?? CommandConfiguration()
  }

  /// The commands from this one down to `command`; just `[command]` when it is not below.
  static func path(to command: (any ParsableArguments.Type)?) -> [any ParsableArguments.Type] {
    guard let command else { return [self] }
    func search(_ path: [any ParsableArguments.Type]) -> [any ParsableArguments.Type]? {
      guard let last = path.last else { return nil }
      if ObjectIdentifier(last) == ObjectIdentifier(command) { return path }
      for subcommand in HelpText.subcommands(of: last) {
        if let found = search(path + [subcommand]) { return found }
      }
      return nil
    }
    return search([self]) ?? [command]
  }
}
