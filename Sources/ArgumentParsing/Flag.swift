/// A flag: `--name` alone, with no value (swift-argument-parser's wrapper of the same name, for
/// `Bool`).
///
/// Its environment twin, when it has one, reads 1, true, yes or on as set and 0, false, no,
/// off or empty as not set; anything else is a usage error. The command line wins: a flag given
/// there is set whatever the environment says.
@propertyWrapper
public struct Flag<Value>: DeclaredProperty {
  let storage: ArgumentStorage<Value>
  private var assigned: Value?

  public var wrappedValue: Value {
    get { assigned ?? storage.value }
    set { assigned = newValue }
  }

  func declarations(propertyName: String, section: String) -> [Declaration] {
    [Reflection.declaration(storage, propertyName: propertyName, section: section)]
  }
}

extension Flag: Sendable where Value: Sendable {}

extension Flag where Value == Bool {
  public init(
    wrappedValue: Bool = false, name: NameSpecification = .long, help: ArgumentHelp? = nil,
    environment: String? = nil
  ) {
    let definition = ArgumentDefinition(
      kind: .flag, name: name, help: help ?? ArgumentHelp(), environment: environment)
    storage = ArgumentStorage(
      definition, default: .value(wrappedValue), fromArguments: { _ in true },
      fromEnvironment: Self.boolean)
  }

  private static func boolean(_ text: String) throws -> Bool {
    switch text.lowercased() {
    case "1", "true", "yes", "on": return true
    case "", "0", "false", "no", "off": return false
    default: throw InvalidValue(text: text, expected: "1 or 0")
    }
  }
}
