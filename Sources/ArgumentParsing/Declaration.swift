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

/// The wrapped properties of parsed values, found with `Mirror`.
enum Reflection {
  /// Every declaration of `value` and of its option groups, in declaration order.
  static func declarations(of value: Any, section: String = "") -> [Declaration] {
    Mirror(reflecting: value).children.flatMap { child -> [Declaration] in
      guard let label = child.label, let property = child.value as? any DeclaredProperty else {
        return []
      }
      let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
      return property.declarations(propertyName: name, section: section)
    }
  }

  /// Validates the option groups of `value`, inner groups first.
  static func validateGroups(in value: Any) throws {
    for child in Mirror(reflecting: value).children {
      try (child.value as? any DeclaredProperty)?.validateGroup()
    }
  }

  /// The property declarations of a single wrapper: its own name or the custom one.
  static func declaration(
    _ storage: any FillableStorage, propertyName: String, section: String
  ) -> Declaration {
    let definition = storage.definition
    let name: String
    if definition.kind == .positional {
      name = definition.help.valueName ?? kebabCase(propertyName)
    } else {
      name = definition.name.longName ?? kebabCase(propertyName)
    }
    return Declaration(storage: storage, name: name, section: section)
  }

  /// `accessTokenTTL` → `access-token-ttl`, `serverPID` → `server-pid`, `URLPath` → `url-path`.
  static func kebabCase(_ name: String) -> String {
    let characters = Array(name)
    var result = ""
    for (index, character) in characters.enumerated() {
      if character.isUppercase, index > 0 {
        let previous = characters[index - 1]
        let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
        if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
          result.append("-")
        }
      }
      result.append(contentsOf: character.lowercased())
    }
    return result
  }
}
