/// A positional argument (swift-argument-parser's wrapper of the same name). Arguments take
/// the positional values in the order the properties are declared; an array takes all that
/// are left. After `--` every value is positional, even one that starts with `--`.
@propertyWrapper
public struct Argument<Value>: DeclaredProperty {
  let storage: ArgumentStorage<Value>
  private var assigned: Value?

  init(
    help: ArgumentHelp?, repeating: Bool = false,
    default defaultValue: ArgumentStorage<Value>.Default,
    fromArguments: @escaping @Sendable ([String]) throws -> Value
  ) {
    let definition = ArgumentDefinition(
      kind: .positional, help: help ?? ArgumentHelp(), isRepeating: repeating)
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

extension Argument: Sendable where Value: Sendable {}

extension Argument where Value: ExpressibleByArgument {
  /// A required argument.
  public init(help: ArgumentHelp? = nil) {
    let convert = Conversion.argument(Value.self)
    self.init(help: help, default: .required) { texts in
      try convert(texts[0])
    }
  }

  /// An argument that may be left out.
  public init(wrappedValue: Value, help: ArgumentHelp? = nil) {
    let convert = Conversion.argument(Value.self)
    self.init(help: help, default: .value(wrappedValue)) { texts in
      try convert(texts[0])
    }
  }
}

extension Argument {
  /// A required argument converted by `transform`; see `ValidationError` for what its error
  /// should say.
  public init(help: ArgumentHelp? = nil, transform: @escaping @Sendable (String) throws -> Value) {
    let convert = Conversion.transform(transform)
    self.init(help: help, default: .required) { texts in
      try convert(texts[0])
    }
  }

  /// Every positional value that is left (perhaps none).
  public init<T: ExpressibleByArgument>(wrappedValue: [T] = [], help: ArgumentHelp? = nil)
  where Value == [T] {
    let convert = Conversion.argument(T.self)
    self.init(help: help, repeating: true, default: .value(wrappedValue)) {
      texts in try texts.map(convert)
    }
  }
}
