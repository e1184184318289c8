/// What one `@Option`, `@Flag` or `@Argument` declares, without its value type: all that the
/// parser and the help need to know about it.
struct ArgumentDefinition: Sendable {
  enum Kind: Sendable {
    case option
    case flag
    case positional
  }

  var kind: Kind
  var name = NameSpecification.long
  var help: ArgumentHelp
  /// The environment variable read when the command line does not give it.
  var environment: String?
  /// The value is the next argument even when it looks like an option.
  var takesAnyNextArgument = false
  /// Each occurrence adds a value (an array).
  var isRepeating = false
  /// Neither a default nor an optional type: missing is a usage error.
  var isRequired = false
  /// The default as the help shows it; nil shows none.
  var defaultDescription: String?
}

/// A value that did not convert: the parser puts the option's name in front.
struct InvalidValue: Error {
  let text: String
  /// Completes `--name must be …`.
  let expected: String
}

/// A usage error's message, before the parser knows which command it is about.
struct UsageMessage: Error {
  let text: String
}
