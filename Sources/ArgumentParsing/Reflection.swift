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
