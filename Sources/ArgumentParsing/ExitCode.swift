/// A process exit status (swift-argument-parser's type of the same name). Thrown from `run()`,
/// it ends the process with that status and prints nothing.
public struct ExitCode: Error, RawRepresentable, Hashable, Sendable {
  public var rawValue: Int32

  public init(_ code: Int32) {
    rawValue = code
  }

  public init(rawValue: Int32) {
    self.init(rawValue)
  }

  public static let success = ExitCode(0)
  /// Something went wrong.
  public static let failure = ExitCode(1)
  /// A wrong command line: `EX_USAGE` from BSD's `sysexits.h`.
  public static let validationFailure = ExitCode(64)

  public var isSuccess: Bool { self == .success }
}
