/// Turns a command line into a filled command: the rules every tool's command line follows.
///
/// - Options are `--name value` or `--name=value`, anywhere among the positional arguments;
///   `--` ends the options. A flag given a value (`--dev=yes`) is a usage error.
/// - `-h` or `--help` anywhere before `--` asks for the help of the command named so far, even
///   when the rest of the command line is wrong.
/// - When a command has subcommands, its first positional argument names one (or is `help`,
///   followed by the subcommand to describe). Options before that name are the parent's; the
///   subcommand must declare each of them too (through a shared `@OptionGroup`), and receives
///   their values as if given after its name.
/// - Each property takes the command line's value, else its environment twin's, else its
///   default.
struct CommandParser {
  let root: any ParsableArguments.Type
  let environment: [String: String]
  /// False for `parse(_:environment:)`: a subcommand's name is then a plain argument.
  let followsSubcommands: Bool

  func parse(_ arguments: [String]) throws -> any ParsableArguments {
    var path = [root]
    var command = root.init()
    var declarations = Reflection.declarations(of: command)
    var given: [(name: String, text: String)] = []
    var positionals: [String] = []
    var helpRequested = false
    let asksForHelp = arguments.prefix { $0 != "--" }.contains(where: Self.isHelp)
    func failure(_ message: String) -> CommandError {
      CommandError(asksForHelp ? .helpRequested : .usage(message), path: path)
    }

    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if argument == "--" {
        positionals += remaining
        break
      }
      if Self.isHelp(argument) {
        helpRequested = true
        continue
      }
      if argument.hasPrefix("--") {
        var name = String(argument.dropFirst(2))
        var inline: String?
        if let equals = name.firstIndex(of: "=") {
          inline = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
        guard let declaration = declarations.first(where: { !$0.isPositional && $0.name == name })
        else { throw failure("unknown option --\(name)") }
        if declaration.definition.kind == .flag {
          guard inline == nil else { throw failure("--\(name) takes no value") }
          given.append((name, ""))
        } else if let inline {
          given.append((name, inline))
        } else if let next = remaining.first,
          declaration.definition.takesAnyNextArgument || !Self.looksLikeOption(next)
        {
          remaining.removeFirst()
          given.append((name, next))
        } else {
          throw failure("--\(name) needs a value")
        }
        continue
      }
      let subcommands = followsSubcommands ? HelpText.subcommands(of: path[path.count - 1]) : []
      if positionals.isEmpty, !subcommands.isEmpty {
        if let subcommand = subcommands.first(where: { HelpText.name(of: $0) == argument }) {
          path.append(subcommand)
          command = subcommand.init()
          declarations = Reflection.declarations(of: command)
          continue
        }
        if argument == "help" {
          throw CommandError(.helpRequested, path: Self.helpPath(from: path, naming: remaining))
        }
        if !declarations.contains(where: \.isPositional) {
          throw failure("unknown command '\(argument)'")
        }
      }
      positionals.append(argument)
    }
    if helpRequested { throw CommandError(.helpRequested, path: path) }

    do throws(UsageMessage) {
      try fill(declarations, given: given, positionals: positionals, path: path)
    } catch {
      throw failure(error.text)
    }
    do {
      try Reflection.validateGroups(in: command)
      try command.validate()
    } catch let error as ValidationError {
      throw failure(error.message)
    }
    return command
  }

  private func fill(
    _ declarations: [Declaration], given: [(name: String, text: String)], positionals: [String],
    path: [any ParsableArguments.Type]
  ) throws(UsageMessage) {
    let options = declarations.filter { !$0.isPositional }
    if let stray = given.first(where: { option in !options.contains { $0.name == option.name } }) {
      let command = path.map(HelpText.name(of:)).joined(separator: " ")
      throw UsageMessage(text: "--\(stray.name) does not apply to '\(command)'")
    }
    for declaration in options {
      let texts = given.filter { $0.name == declaration.name }.map(\.text)
      try declaration.storage.fill(
        texts, name: declaration.displayName, environment: environment)
    }
    var rest = positionals[...]
    for declaration in declarations where declaration.isPositional {
      let texts: [String]
      if declaration.definition.isRepeating {
        texts = Array(rest)
        rest = []
      } else {
        texts = rest.popFirst().map { [$0] } ?? []
      }
      try declaration.storage.fill(
        texts, name: declaration.displayName, environment: environment)
    }
    if let extra = rest.first {
      throw UsageMessage(text: "unexpected argument '\(extra)'")
    }
  }

  /// `help send`: the path down to the subcommands named, as far as they are known.
  private static func helpPath(
    from path: [any ParsableArguments.Type], naming names: ArraySlice<String>
  ) -> [any ParsableArguments.Type] {
    var path = path
    for name in names {
      let subcommands = HelpText.subcommands(of: path[path.count - 1])
      guard let subcommand = subcommands.first(where: { HelpText.name(of: $0) == name })
      else { break }
      path.append(subcommand)
    }
    return path
  }

  static func isHelp(_ argument: String) -> Bool {
    argument == "-h" || argument == "--help"
  }

  /// What an option's value cannot be unless the option takes any next argument.
  static func looksLikeOption(_ argument: String) -> Bool {
    argument.hasPrefix("--") || argument == "-h"
  }
}
