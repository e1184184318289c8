/// A wrong command line found by `validate()` or `run()`: printed with the help (or a hint to
/// `--help`), exit status 64.
///
/// Thrown by an `@Option(transform:)` or `@Argument(transform:)` closure, its message says what
/// the value must be, and the parser completes the sentence: a transform throwing
/// `ValidationError("BURST,PER_SECOND or off")` makes
/// `--rate-limit must be BURST,PER_SECOND or off, got 'fast'`.
public struct ValidationError: Error, CustomStringConvertible, Equatable {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
