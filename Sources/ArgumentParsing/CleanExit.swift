/// An end that is not a failure (swift-argument-parser's type of the same name): thrown from
/// `validate()` or `run()`, it prints to standard output and exits with 0.
public enum CleanExit: Error, CustomStringConvertible {
  /// Prints the help of `command` (nil: the root command).
  case helpRequest((any ParsableCommand.Type)? = nil)
  /// Prints the message.
  case message(String)

  public var description: String {
    switch self {
    case .helpRequest: return "--help"
    case .message(let message): return message
    }
  }
}
