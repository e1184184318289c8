/// The help of one command, generated from its configuration and its declarations: overview,
/// discussion, usage line, arguments, options (one section per titled option group, with
/// `-h, --help` closing the last one), subcommands.
///
/// Each entry shows its help, then what a reader cannot guess: the default, the environment
/// variable, and whether it repeats — `(default: 8080, env: CHAT_SERVER_PORT)`.
struct HelpText {
  /// The command described, from the root down.
  let path: [any ParsableArguments.Type]

  private static let width = 80
  private static let labelWidth = 22

  private var command: any ParsableArguments.Type { path[path.count - 1] }
  private var configuration: CommandConfiguration { Self.configuration(of: command) }
  private var declarations: [Declaration] { Reflection.declarations(of: command.init()) }

  /// `chat send`: the names on the path.
  var commandPath: String { path.map(Self.name(of:)).joined(separator: " ") }

  /// The line under a usage error when the help itself is not printed.
  var hint: String { "Run \(commandPath) --help for the options." }

  func render() -> String {
    var sections: [String] = []
    if !configuration.abstract.isEmpty { sections.append("OVERVIEW: \(configuration.abstract)") }
    if !configuration.discussion.isEmpty { sections.append(configuration.discussion) }
    sections.append("USAGE: \(configuration.usage ?? usage)")
    let arguments = declarations.filter(\.isPositional)
    if !arguments.isEmpty {
      sections.append("ARGUMENTS:\n" + arguments.map(Self.entry).joined(separator: "\n"))
    }
    let options = declarations.filter { !$0.isPositional }
    // The command's own options first, then each titled group in the order declared.
    var titles = [""]
    for option in options where !titles.contains(option.section) { titles.append(option.section) }
    titles.removeAll { title in title.isEmpty && !options.contains { $0.section.isEmpty } }
    if titles.isEmpty { titles = [""] }
    for (index, title) in titles.enumerated() {
      var rows = options.filter { $0.section == title }.map(Self.entry)
      if index == titles.count - 1 { rows.append(Self.row("-h, --help", "Show help information.")) }
      sections.append((title.isEmpty ? "OPTIONS" : title) + ":\n" + rows.joined(separator: "\n"))
    }
    let subcommands = Self.subcommands(of: command)
    if !subcommands.isEmpty {
      let rows = subcommands.map {
        Self.row(Self.name(of: $0), Self.configuration(of: $0).abstract)
      }
      sections.append(
        "SUBCOMMANDS:\n" + rows.joined(separator: "\n")
          + "\n\n  See '\(commandPath) help <subcommand>' for detailed help.")
    }
    return sections.joined(separator: "\n\n")
  }

  /// The generated usage line: required options spelled out, the others as `[<options>]`,
  /// then the arguments, then `<subcommand>`.
  private var usage: String {
    var parts = [commandPath]
    let options = declarations.filter { !$0.isPositional }
    for option in options where option.definition.isRequired { parts.append(Self.label(option)) }
    if options.contains(where: { !$0.definition.isRequired }) { parts.append("[<options>]") }
    for argument in declarations where argument.isPositional {
      let definition = argument.definition
      if definition.isRepeating {
        parts.append("\(argument.displayName) ...")
      } else {
        parts.append(definition.isRequired ? argument.displayName : "[\(argument.displayName)]")
      }
    }
    if !Self.subcommands(of: command).isEmpty { parts.append("<subcommand>") }
    return parts.joined(separator: " ")
  }

  private static func label(_ declaration: Declaration) -> String {
    let definition = declaration.definition
    switch definition.kind {
    case .positional, .flag: return declaration.displayName
    case .option:
      let value =
        definition.help.valueName
        ?? declaration.name.uppercased().replacingOccurrences(of: "-", with: "_")
      return "\(declaration.displayName) \(value)"
    }
  }

  private static func entry(_ declaration: Declaration) -> String {
    let definition = declaration.definition
    var text = definition.help.abstract
    if !definition.help.discussion.isEmpty { text += " " + definition.help.discussion }
    var notes: [String] = []
    if let value = definition.defaultDescription { notes.append("default: \(value)") }
    if let variable = definition.environment { notes.append("env: \(variable)") }
    if definition.isRepeating, declaration.definition.kind == .option {
      notes.append("repeatable")
    }
    var words = text.split(separator: " ").map(String.init)
    // Each note stays on one line: `env: CHAT_SERVER_PORT` is never split.
    for (index, note) in notes.enumerated() {
      let first = index == 0 ? "(" : ""
      let last = index == notes.count - 1 ? ")" : ","
      words.append(first + note + last)
    }
    return row(label(declaration), words)
  }

  /// `  label   text`, the text wrapped in its column (under the label when the label is long).
  private static func row(_ label: String, _ text: String) -> String {
    row(label, text.split(separator: " ").map(String.init))
  }

  private static func row(_ label: String, _ words: [String]) -> String {
    let indent = String(repeating: " ", count: labelWidth + 4)
    var lines = wrap(words, width: width - indent.count)
    let head = "  " + label
    if label.count > labelWidth || lines.isEmpty {
      return ([head] + lines.map { indent + $0 }).joined(separator: "\n")
    }
    lines[0] = head.padding(toLength: indent.count, withPad: " ", startingAt: 0) + lines[0]
    return ([lines[0]] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
  }

  private static func wrap(_ words: [String], width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in words {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }

  static func configuration(of type: any ParsableArguments.Type) -> CommandConfiguration {
    (type as? any ParsableCommand.Type)?.configuration ?? CommandConfiguration()
  }

  static func subcommands(of type: any ParsableArguments.Type) -> [any ParsableCommand.Type] {
    configuration(of: type).subcommands
  }

  /// The configured name, else the type's name in kebab case.
  static func name(of type: any ParsableArguments.Type) -> String {
    configuration(of: type).commandName ?? Reflection.kebabCase(String(describing: type))
  }
}
