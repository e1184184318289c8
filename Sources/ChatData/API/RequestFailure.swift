import ChatDomain

/// What a request to the server ended with, classified the way the outbox needs it: temporary
/// errors keep a message sending and pause the queue; a rejection fails only that message.
enum RequestFailure: Error, Equatable, Sendable {
  /// The request never reached the server (`TransportError.unreachable`).
  case unreachable(String)
  /// The server could not be reached, or the connection was cut before the reply: it may
  /// have acted.
  case offline(String)
  /// No reply in time; the server may have acted.
  case timeout
  /// TLS with the server failed (see `TransportError.tlsFailed`). Temporary, but not a
  /// network failure: the network coming back does not fix it.
  case tlsFailed(String)
  /// 5xx or 429: try again later, not before `retryAfter` when the server said so.
  case unavailable(status: Int, retryAfter: Duration?)
  /// A 4xx other than 401 and 429: this request will never succeed as it is.
  case rejected(status: Int, code: String, message: String)
  /// 401 even after one refresh: the session is over.
  case signedOut
  /// A reply this client cannot read (a proxy's page, a truncated body). Treated as temporary.
  case malformedReply(String)

  var isTemporary: Bool {
    switch self {
    case .unreachable, .offline, .timeout, .tlsFailed, .unavailable, .malformedReply: true
    case .rejected, .signedOut: false
    }
  }

  /// True when the network itself failed, so the network coming back is a reason to retry now.
  var isNetworkFailure: Bool {
    switch self {
    case .unreachable, .offline, .timeout: true
    default: false
    }
  }

  var retryAfter: Duration? {
    if case .unavailable(_, let retryAfter) = self { return retryAfter }
    return nil
  }

  /// A short, text-free label for logs and metrics.
  var label: String {
    switch self {
    case .unreachable, .offline: "offline"
    case .timeout: "timeout"
    case .tlsFailed: "tls_failed"
    case .unavailable(let status, _): "status_\(status)"
    case .rejected(let status, let code, _): "\(status)_\(code)"
    case .signedOut: "signed_out"
    case .malformedReply: "malformed_reply"
    }
  }

  var chatError: ChatError {
    switch self {
    case .unreachable, .offline, .timeout: .offline
    case .tlsFailed(let reason): .serverNotTrusted(reason)
    case .unavailable(_, let retryAfter):
      .unavailable(retryAfterSeconds: retryAfter.map { Int($0.components.seconds) })
    case .rejected(404, _, _): .notFound("conversation")
    case .rejected(_, let code, let message): .rejected(code: code, message: message)
    case .signedOut: .signedOut
    case .malformedReply: .unavailable(retryAfterSeconds: nil)
    }
  }
}
