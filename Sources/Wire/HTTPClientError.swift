/// Why ``HTTPClient/execute(_:timeout:)`` got no response, and how far the request got.
///
/// `progress` is what a caller needs to decide whether to send the request again: before
/// ``HTTPRequestProgress/sent`` the server cannot have acted on it; from there on it may have.
public struct HTTPClientError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong; each case says what to do.
  public enum Reason: Hashable, Sendable {
    /// The URL is not `http://host[:port][/path]`: fix the configuration.
    case invalidURL(String)
    /// A scheme this client does not speak (only `http` and `https`).
    case unsupportedScheme(String)
    /// A method or header that cannot be written (not a token, a CR or LF in a value): fix
    /// the request.
    case invalidRequest(String)
    /// The TCP connect failed: retry later.
    case connectFailed(ConnectError)
    /// The TLS handshake failed: the server's certificate is expired, untrusted or for
    /// another name, or the server does not speak TLS. Fix the server or the trust roots.
    case tls(TLSError)
    /// No complete response within the request's timeout: retry later, if it is safe to.
    case timedOut
    /// The connection closed (FIN or reset) before the response was complete: retry later,
    /// if it is safe to.
    case connectionClosed
    /// The response broke HTTP/1.1 or a limit (a proxy's garbage, a server bug): retry later.
    case invalidResponse(HTTPResponseParseError)
    /// The calling task was cancelled.
    case cancelled
    /// ``HTTPClient/shutdown()`` was called.
    case shutDown
  }

  public let reason: Reason
  public let progress: HTTPRequestProgress

  public init(_ reason: Reason, progress: HTTPRequestProgress) {
    self.reason = reason
    self.progress = progress
  }

  /// Whether the server may have received the whole request (and so acted on it).
  public var mayHaveReachedServer: Bool { progress >= .sent }

  /// Whether trying again later may succeed: everything but a bad URL or request.
  public var isTemporary: Bool {
    switch reason {
    case .invalidURL, .unsupportedScheme, .invalidRequest: false
    default: true
    }
  }

  public var description: String {
    switch reason {
    case .invalidURL(let url): "not an http:// URL: \(url)"
    case .unsupportedScheme(let scheme):
      "unsupported scheme \(scheme)"
    case .invalidRequest(let problem): "the request cannot be written: \(problem)"
    case .connectFailed(let error): "\(error)"
    case .timedOut:
      mayHaveReachedServer
        ? "no response within the timeout (the server may have acted on the request)"
        : "the request timed out before it was sent"
    case .tls(let error): "\(error)"
    case .connectionClosed: "the connection closed before the response was complete"
    case .invalidResponse(let error): "invalid response: \(error)"
    case .cancelled: "cancelled"
    case .shutDown: "the HTTP client is shut down"
    }
  }
}

/// How far a request got before it failed.
public enum HTTPRequestProgress: Int, Comparable, Sendable {
  /// Not a byte was written: the server cannot have seen the request.
  case notSent
  /// Part of the request was written: the server may have seen its beginning but cannot act
  /// on it (the request is framed, so an incomplete one is never taken for a whole one).
  case partlySent
  /// The whole request was written and no byte of a response came back: the server may have
  /// acted on it.
  case sent
  /// Part of a response arrived: the server received the request.
  case responseStarted

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
