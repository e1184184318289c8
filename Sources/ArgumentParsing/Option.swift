/// An option that takes a value: `--name value` or `--name=value`, before or after the
/// positional arguments (swift-argument-parser's wrapper of the same name).
///
/// The value comes from the command line (the last one given wins; an array takes every one),
/// else from the environment variable named by `environment`, else from the default. Without
/// a default and without an optional type the option is required.
@propertyWrapper
public struct Option<Value>: DeclaredProperty {
  let storage: ArgumentStorage<Value>
  /// Set by assigning to the property: this copy's value from then on.
  private var assigned: Value?

  init(
    name: NameSpecification, help: ArgumentHelp?, environment: String?, anyNext: Bool,
    repeating: Bool = false, default defaultValue: ArgumentStorage<Value>.Default,
    defaultDescription: String? = nil,
    fromArguments: @escaping @Sendable ([String]) throws -> Value
  ) {
    let definition = ArgumentDefinition(
      kind: .option, name: name, help: help ?? ArgumentHelp(), environment: environment,
      takesAnyNextArgument: anyNext, isRepeating: repeating,
      defaultDescription: defaultDescription)
    storage = ArgumentStorage(definition, default: defaultValue, fromArguments: fromArguments)
  }

  public var wrappedValue: Value {
    get { assigned ?? storage.value }
    set { assigned = newValue }
  }

  func declarations(propertyName: String, section: String) -> [Declaration] {
    [Reflection.declaration(storage, propertyName: propertyName, section: section)]
  }
}

extension Option: Sendable where Value: Sendable {}

extension Option where Value: ExpressibleByArgument {
  /// An option with a default.
  public init(
    wrappedValue: Value, name: NameSpecification = .long,
    parsing: SingleValueParsingStrategy = .next, help: ArgumentHelp? = nil,
    environment: String? = nil
  ) {
    let convert = Conversion.argument(Value.self)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .value(wrappedValue), defaultDescription: Conversion.describe(wrappedValue)
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// A required option.
  public init(
    name: NameSpecification = .long, parsing: SingleValueParsingStrategy = .next,
    help: ArgumentHelp? = nil, environment: String? = nil
  ) {
    let convert = Conversion.argument(Value.self)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .required
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// An option whose default depends on the environment being parsed (a folder under
  /// `$XDG_DATA_HOME`, say); the help text should say what it is.
  public init(
    name: NameSpecification = .long, parsing: SingleValueParsingStrategy = .next,
    help: ArgumentHelp? = nil, environment: String? = nil,
    defaultFromEnvironment: @escaping @Sendable ([String: String]) -> Value
  ) {
    let convert = Conversion.argument(Value.self)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .computed(defaultFromEnvironment)
    ) { texts in try convert(texts[texts.count - 1]) }
  }
}

extension Option {
  /// An optional option: nil when neither the command line nor the environment gives it.
  public init<T: ExpressibleByArgument>(
    name: NameSpecification = .long, parsing: SingleValueParsingStrategy = .next,
    help: ArgumentHelp? = nil, environment: String? = nil
  ) where Value == T? {
    let convert = Conversion.argument(T.self)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .value(nil)
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// An option with a default, converted by `transform`; see `ValidationError` for what its
  /// error should say.
  public init(
    wrappedValue: Value, name: NameSpecification = .long,
    parsing: SingleValueParsingStrategy = .next, help: ArgumentHelp? = nil,
    environment: String? = nil, transform: @escaping @Sendable (String) throws -> Value
  ) {
    let convert = Conversion.transform(transform)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .value(wrappedValue), defaultDescription: Conversion.describe(wrappedValue)
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// A required option converted by `transform`.
  public init(
    name: NameSpecification = .long, parsing: SingleValueParsingStrategy = .next,
    help: ArgumentHelp? = nil, environment: String? = nil,
    transform: @escaping @Sendable (String) throws -> Value
  ) {
    let convert = Conversion.transform(transform)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .required
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// An optional option converted by `transform`: nil when not given.
  public init<T>(
    name: NameSpecification = .long, parsing: SingleValueParsingStrategy = .next,
    help: ArgumentHelp? = nil, environment: String? = nil,
    transform: @escaping @Sendable (String) throws -> T
  ) where Value == T? {
    let convert = Conversion.transform(transform)
    self.init(
      name: name, help: help, environment: environment, anyNext: parsing == .unconditional,
      default: .value(nil)
    ) { texts in try convert(texts[texts.count - 1]) }
  }

  /// A repeatable option: each `--name value` adds one element, in order.
  public init<T: ExpressibleByArgument>(
    wrappedValue: [T] = [], name: NameSpecification = .long,
    parsing: ArrayParsingStrategy = .singleValue, help: ArgumentHelp? = nil
  ) where Value == [T] {
    let convert = Conversion.argument(T.self)
    self.init(
      name: name, help: help, environment: nil, anyNext: parsing == .unconditionalSingleValue,
      repeating: true, default: .value(wrappedValue)
    ) { texts in try texts.map(convert) }
  }
}
