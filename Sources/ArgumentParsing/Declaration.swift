/// One option, flag or positional argument found in a parsed value, with the name it goes by.
struct Declaration {
  let storage: any FillableStorage
  /// The long name of an option or flag (`port`), or the value name of an argument (`text`).
  let name: String
  /// The help section: the title of the option group it came from, "" for the command's own.
  let section: String

  var definition: ArgumentDefinition { storage.definition }
  var isPositional: Bool { definition.kind == .positional }

  /// `--port` or `<text>`: how messages and the help show it.
  var displayName: String { isPositional ? "<\(name)>" : "--\(name)" }
}

/// A property wrapper the parser recognises when `Mirror` shows it.
protocol DeclaredProperty {
  /// What the property declares; `propertyName` is its name without the wrapper's underscore.
  func declarations(propertyName: String, section: String) -> [Declaration]

  /// Validates an option group's value (and the groups inside it); nothing for the others.
  func validateGroup() throws
}

extension DeclaredProperty {
  func validateGroup() throws {}
}
