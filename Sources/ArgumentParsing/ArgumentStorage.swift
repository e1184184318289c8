import Foundation

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
