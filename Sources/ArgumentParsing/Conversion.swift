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
