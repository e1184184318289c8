/// The options of a `ParsableArguments` type, included in a command (swift-argument-parser's
/// wrapper of the same name). Several commands can share one group: a subcommand that includes
/// the same group as its parent also takes those options before its own name
/// (`chat --user alice send …`).
@propertyWrapper
public struct OptionGroup<Value: ParsableArguments>: DeclaredProperty {
  let storage: GroupStorage<Value>
  /// The help section's title; "" lists the options with the command's own.
  let title: String
  private var assigned: Value?

  public init(title: String = "") {
    storage = GroupStorage(Value())
    self.title = title
  }

  public var wrappedValue: Value {
    get { assigned ?? storage.value }
    set { assigned = newValue }
  }

  func declarations(propertyName: String, section: String) -> [Declaration] {
    Reflection.declarations(of: storage.value, section: title.isEmpty ? section : title)
  }

  func validateGroup() throws {
    try Reflection.validateGroups(in: storage.value)
    try storage.value.validate()
  }
}

extension OptionGroup: Sendable where Value: Sendable {}

/// The group's value, shared by every copy of the wrapper so that parsing fills it in place.
final class GroupStorage<Value>: @unchecked Sendable {
  // @unchecked: `value` is mutated only by `validate()` while the parser builds the command,
  // before `parse` hands it out; after that every copy only reads it.
  var value: Value

  init(_ value: Value) {
    self.value = value
  }
}
