/// A type an option or argument value converts to from its text (swift-argument-parser's
/// protocol of the same name, with `valueExpectation` added for the error message).
public protocol ExpressibleByArgument: SendableMetatype {
  init?(argument: String)

  /// The default value as the help shows it.
  var defaultValueDescription: String { get }

  /// What a value must be, completing `--name must be …, got 'x'`.
  static var valueExpectation: String { get }
}

extension ExpressibleByArgument {
  public var defaultValueDescription: String { "\(self)" }
  public static var valueExpectation: String { "a valid value" }
}

extension String: ExpressibleByArgument {
  public init?(argument: String) {
    self = argument
  }
}

extension Int: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(argument)
  }

  public static var valueExpectation: String { "a whole number" }
}

extension Int32: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(argument)
  }

  public static var valueExpectation: String { "a whole number" }
}

extension Int64: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(argument)
  }

  public static var valueExpectation: String { "a whole number" }
}

extension UInt64: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(argument)
  }

  public static var valueExpectation: String { "a non-negative whole number" }
}

extension Double: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(argument)
  }

  public static var valueExpectation: String { "a number" }
}

/// Enums with raw values: the raw value is the text.
extension RawRepresentable where Self: ExpressibleByArgument, RawValue: ExpressibleByArgument {
  public init?(argument: String) {
    guard let rawValue = RawValue(argument: argument) else { return nil }
    self.init(rawValue: rawValue)
  }

  public var defaultValueDescription: String { rawValue.defaultValueDescription }
}

extension ExpressibleByArgument
where Self: CaseIterable, Self: RawRepresentable, RawValue == String {
  public static var valueExpectation: String {
    "one of " + allCases.map(\.rawValue).joined(separator: ", ")
  }
}

extension ExpressibleByArgument where Self: Comparable, Self: Sendable {
  /// A transform for `@Option(transform:)`: a value in `range`, else
  /// `--name must be a whole number in 1...64, got '0'`.
  public static func inRange(_ range: ClosedRange<Self>) -> @Sendable (String) throws -> Self {
    { text in
      guard let value = Self(argument: text), range.contains(value) else {
        throw ValidationError("\(valueExpectation) in \(range.lowerBound)...\(range.upperBound)")
      }
      return value
    }
  }

  /// A transform for `@Option(transform:)`: a value of at least `range.lowerBound`, else
  /// `--name must be a whole number of at least 1, got '0'`.
  public static func inRange(_ range: PartialRangeFrom<Self>) -> @Sendable (String) throws -> Self {
    { text in
      guard let value = Self(argument: text), range.contains(value) else {
        throw ValidationError("\(valueExpectation) of at least \(range.lowerBound)")
      }
      return value
    }
  }
}
