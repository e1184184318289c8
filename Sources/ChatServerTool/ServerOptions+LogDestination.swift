import ArgumentParsing

extension ServerOptions {
  /// Where the log lines go: `stderr` (or `-`, or empty), `off` (or `none`), or a file path.
  public enum LogDestination: ExpressibleByArgument, Sendable, Equatable {
    case standardError
    case file(String)
    case off

    public init?(argument: String) {
      switch argument {
      case "", "stderr", "-": self = .standardError
      case "off", "none": self = .off
      default: self = .file(argument)
      }
    }

    public var defaultValueDescription: String {
      switch self {
      case .standardError: return "stderr"
      case .file(let path): return path
      case .off: return "off"
      }
    }
  }
}
