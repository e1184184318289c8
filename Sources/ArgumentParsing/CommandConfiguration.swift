/// A command's name, help and subcommands (swift-argument-parser's type of the same name, with
/// one addition: `usageErrorHelp`).
public struct CommandConfiguration: Sendable {
  /// The name on the command line; nil derives it from the type's name (`SendCommand` →
  /// `send-command`).
  public var commandName: String?
  /// One line: the help's overview, and the command's line in its parent's list.
  public var abstract: String
  /// Replaces the generated usage line when set.
  public var usage: String?
  /// Printed as written, after the overview.
  public var discussion: String
  /// The commands named by the first positional argument, in the order help lists them.
  public var subcommands: [any ParsableCommand.Type]
  /// What follows a usage error's message; the root command's setting applies.
  public var usageErrorHelp: UsageErrorHelp

  public init(
    commandName: String? = nil, abstract: String = "", usage: String? = nil,
    discussion: String = "", subcommands: [any ParsableCommand.Type] = [],
    usageErrorHelp: UsageErrorHelp = .fullHelp
  ) {
    self.commandName = commandName
    self.abstract = abstract
    self.usage = usage
    self.discussion = discussion
    self.subcommands = subcommands
    self.usageErrorHelp = usageErrorHelp
  }
}

/// What a tool prints under a usage error's message.
public enum UsageErrorHelp: Sendable {
  /// The whole help of the command the error is about.
  case fullHelp
  /// One line: `Run <command> --help for the options.`
  case hint
}
