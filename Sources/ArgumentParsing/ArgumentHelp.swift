/// The help of one option, flag or argument (swift-argument-parser's type of the same name): a
/// string literal, or an abstract with a value name for the usage (`--port N`, `<text>`).
public struct ArgumentHelp: ExpressibleByStringLiteral, Sendable {
  public var abstract: String
  /// Printed after the abstract, in the same entry.
  public var discussion: String
  /// The value's placeholder: `N` in `--port N`, `conversationId` in `<conversationId>`.
  /// Nil uses the name, in capitals for an option.
  public var valueName: String?

  public init(_ abstract: String = "", discussion: String = "", valueName: String? = nil) {
    self.abstract = abstract
    self.discussion = discussion
    self.valueName = valueName
  }

  public init(stringLiteral value: String) {
    self.init(value)
  }
}

/// The name of an option or flag on the command line (the long names of
/// swift-argument-parser's type of the same name; only `-h` is short here).
public struct NameSpecification: Sendable {
  let longName: String?

  /// `--` and the property's name in kebab case: `accessTokenTTL` is `--access-token-ttl`.
  public static let long = NameSpecification(longName: nil)

  /// `--` and `name`.
  public static func customLong(_ name: String) -> NameSpecification {
    NameSpecification(longName: name)
  }
}

/// How an option finds its value when it is not given with `=`.
public enum SingleValueParsingStrategy: Sendable {
  /// The next argument, unless it looks like an option (`--…`, `-h`): then the value is
  /// missing.
  case next
  /// The next argument, whatever it is: `--server-arg --dev` passes `--dev` on.
  case unconditional
}

/// How an array option finds each value when it is not given with `=`.
public enum ArrayParsingStrategy: Sendable {
  /// Each `--name value` adds one value; the value is the next argument unless it looks like
  /// an option.
  case singleValue
  /// Each `--name value` adds one value, the next argument whatever it is.
  case unconditionalSingleValue
}
