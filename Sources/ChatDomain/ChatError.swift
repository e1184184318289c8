/// What went wrong, said so that the caller knows what to do next.
public enum ChatError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The input can never succeed as it is: fix it.
  case invalidInput(String)
  /// No such conversation or message here (or not one of mine).
  case notFound(String)
  /// The network is unreachable or timed out: try again when online. Nothing is lost.
  case offline
  /// The server was reached but not trusted (its certificate did not verify, or it does not
  /// speak TLS): fix the server's certificate or the trusted CAs. Nothing is lost; sends wait.
  case serverNotTrusted(String)
  /// The server is busy or failing: try again later.
  case unavailable(retryAfterSeconds: Int?)
  /// The server refused the request (a 4xx other than the above).
  case rejected(code: String, message: String)
  /// The session ended: sign in again.
  case signedOut
  /// The local database failed; the message says how.
  case storage(String)
  /// The device's storage is full: this was not saved, and nothing saved before was lost.
  /// Free some space and try again.
  case deviceFull

  public var description: String {
    switch self {
    case .invalidInput(let reason): "invalid input: \(reason)"
    case .notFound(let what): "not found: \(what)"
    case .offline: "the server cannot be reached; try again when online"
    case .serverNotTrusted(let reason): "cannot trust the server: \(reason)"
    case .unavailable(let seconds?): "the server is busy; try again in \(seconds) s"
    case .unavailable(nil): "the server is unavailable; try again later"
    case .rejected(let code, let message): "the server refused the request (\(code)): \(message)"
    case .signedOut: "signed out; sign in again"
    case .storage(let reason): "local database error: \(reason)"
    case .deviceFull:
      "this device's storage is full: free some space and try again (nothing saved was lost)"
    }
  }
}
