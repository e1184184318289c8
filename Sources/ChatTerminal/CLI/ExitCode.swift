import ArgumentParsing
import ChatDomain

/// `chat`'s exit statuses besides 0 (`success`), 1 (`failure`) and 64 (`validationFailure`, a
/// wrong command line), from BSD's `sysexits.h` so scripts can tell the cases apart.
extension ExitCode {
  /// The input was refused (an empty message, an unknown member).
  public static let dataError = ExitCode(65)
  /// No such conversation.
  public static let noInput = ExitCode(66)
  /// The local database is damaged or unwritable.
  public static let cannotCreate = ExitCode(73)
  /// The server cannot be reached (or is busy): nothing is lost, try again later.
  public static let temporaryFailure = ExitCode(75)
  /// The server was reached but TLS failed (its certificate did not verify, or it does not
  /// speak TLS): fix the certificate or `--ca-file`. Nothing is lost.
  public static let protocolError = ExitCode(76)
  /// Not signed in, or the session ended: run `chat login`.
  public static let noPermission = ExitCode(77)

  /// The status for an engine error.
  public init(_ error: ChatError) {
    switch error {
    case .invalidInput, .rejected: self = .dataError
    case .notFound: self = .noInput
    case .offline, .unavailable: self = .temporaryFailure
    case .serverNotTrusted: self = .protocolError
    case .signedOut: self = .noPermission
    case .storage, .deviceFull: self = .cannotCreate
    }
  }
}
