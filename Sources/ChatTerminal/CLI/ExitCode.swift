import ChatDomain

/// Exit statuses, from BSD's `sysexits.h` so scripts can tell the cases apart.
public enum ExitCode: Int32, Sendable {
  case success = 0
  /// Something else went wrong.
  case failure = 1
  /// A wrong command line: help was printed.
  case usage = 64
  /// The input was refused (an empty message, an unknown member).
  case dataError = 65
  /// No such conversation.
  case noInput = 66
  /// The local database is damaged or unwritable.
  case cannotCreate = 73
  /// The server cannot be reached (or is busy): nothing is lost, try again later.
  case temporaryFailure = 75
  /// Not signed in, or the session ended: run `chat login`.
  case noPermission = 77

  /// The status for an engine error.
  public init(_ error: ChatError) {
    switch error {
    case .invalidInput, .rejected: self = .dataError
    case .notFound: self = .noInput
    case .offline, .unavailable: self = .temporaryFailure
    case .signedOut: self = .noPermission
    case .storage: self = .cannotCreate
    }
  }
}
