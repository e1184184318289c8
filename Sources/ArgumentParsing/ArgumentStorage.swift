import Foundation

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

/// What the parser calls to fill one property, whatever its value type.
protocol FillableStorage: AnyObject {
  var definition: ArgumentDefinition { get }

  /// Fills the value from `texts` (every value the command line gave, in order), else from the
  /// environment twin, else from the default; `name` is how errors show it.
  func fill(_ texts: [String], name: String, environment: [String: String]) throws(UsageMessage)
}

/// Where a property's value lives once parsed. Every copy of the property wrapper shares it,
/// so parsing fills the instance that `Mirror` found and every copy of the command sees it.
final class ArgumentStorage<Value>: FillableStorage, @unchecked Sendable {
  // @unchecked: `parsed` is written only by `fill`, while the parser builds the command and
  // before `parse` hands the command out; after that every copy only reads it.
  enum Default {
    case required
    case value(Value)
    /// Computed from the environment being parsed (the process's when read unparsed).
    case computed(@Sendable ([String: String]) -> Value)
  }

  let definition: ArgumentDefinition
  private let fromArguments: @Sendable ([String]) throws -> Value
  private let fromEnvironment: @Sendable (String) throws -> Value
  private let defaultValue: Default
  private var parsed: Value?

  init(
    _ definition: ArgumentDefinition, default defaultValue: Default,
    fromArguments: @escaping @Sendable ([String]) throws -> Value,
    fromEnvironment: (@Sendable (String) throws -> Value)? = nil
  ) {
    var definition = definition
    if case .required = defaultValue { definition.isRequired = true }
    self.definition = definition
    self.defaultValue = defaultValue
    self.fromArguments = fromArguments
    if let fromEnvironment {
      self.fromEnvironment = fromEnvironment
    } else {
      self.fromEnvironment = { text in try fromArguments([text]) }
    }
  }

  /// The parsed value, else the default.
  var value: Value {
    if let parsed { return parsed }
    switch defaultValue {
    case .value(let value): return value
    case .computed(let make): return make(ProcessInfo.processInfo.environment)
    case .required: fatalError("\(definition.kind) read before parsing, and it has no default")
    }
  }

  func fill(_ texts: [String], name: String, environment: [String: String]) throws(UsageMessage) {
    if !texts.isEmpty {
      parsed = try Self.converting(name) { try fromArguments(texts) }
    } else if let variable = definition.environment, let text = environment[variable] {
      parsed = try Self.converting(variable) { try fromEnvironment(text) }
    } else if case .computed(let make) = defaultValue {
      parsed = make(environment)
    } else if case .required = defaultValue {
      throw UsageMessage(text: "missing \(name)")
    }
  }

  /// Runs a conversion, whose only error is `InvalidValue`, naming the value in the message.
  private static func converting(
    _ name: String, _ body: () throws -> Value
  ) throws(UsageMessage) -> Value {
    do {
      return try body()
    } catch let error as InvalidValue {
      throw UsageMessage(text: "\(name) must be \(error.expected), got '\(error.text)'")
    } catch {
      throw UsageMessage(text: "\(name): \(error)")
    }
  }
}

/// Turns one text into an element: through `ExpressibleByArgument`, or through a transform
/// whose error says what the value must be.
enum Conversion {
  static func argument<T: ExpressibleByArgument>(_: T.Type) -> @Sendable (String) throws -> T {
    { text in
      guard let value = T(argument: text) else {
        throw InvalidValue(text: text, expected: T.valueExpectation)
      }
      return value
    }
  }

  static func transform<T>(_ transform: @escaping @Sendable (String) throws -> T)
    -> @Sendable (String) throws -> T
  {
    { text in
      do {
        return try transform(text)
      } catch {
        throw InvalidValue(text: text, expected: "\(error)")
      }
    }
  }

  /// The default of a value the help can show: an `ExpressibleByArgument` that is not empty.
  static func describe(_ value: Any) -> String? {
    guard let value = value as? any ExpressibleByArgument else { return nil }
    let text = value.defaultValueDescription
    return text.isEmpty ? nil : text
  }
}
