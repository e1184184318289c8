/// One attempt at one request, as the pool and a connection see it on the client's loop. Its
/// caller awaits each step (a connect to make, then the outcome) through `continuation`; every
/// step is resumed exactly once, by the loop, while its continuation is set.
final class HTTPExchange: @unchecked Sendable {
  // @unchecked: created on the caller's thread, then touched only on the loop's thread (the
  // caller reaches it only through `loop.execute`).
  enum Step: Sendable {
    /// Open a connection in the slot the pool reserved for this exchange, then hand it over
    /// with `HTTPConnectionPool.start(_:on:)`.
    case connect
    /// The exchange is over.
    case done(Result<HTTPClientResponse, Failure>)

    /// The exchange is over with `reason`, before any byte of the request was sent (a failed
    /// connect or TLS handshake on a new connection).
    static func notSent(_ reason: HTTPClientError.Reason) -> Step {
      .done(
        .failure(
          Failure(error: HTTPClientError(reason, progress: .notSent), onReusedConnection: false)))
    }
  }

  /// A failed attempt, with what the retry rule needs.
  struct Failure: Error, Sendable {
    let error: HTTPClientError
    /// Whether the connection had carried an earlier exchange.
    let onReusedConnection: Bool

    /// Whether the attempt may be made again, once, on a fresh connection: it failed on a
    /// reused connection, by that connection closing, before any response byte, and the
    /// request is idempotent or provably never reached the server.
    func allowsRetry(idempotent: Bool) -> Bool {
      guard onReusedConnection, error.reason == .connectionClosed,
        error.progress < .responseStarted
      else { return false }
      return idempotent || !error.mayHaveReachedServer
    }
  }

  let request: PreparedRequest
  /// Monotonic milliseconds: the end of the whole request, connect and retry included.
  let deadline: Int64
  /// Skip idle connections: this is the retry after a failure on a reused one.
  let needsFreshConnection: Bool
  var continuation: CheckedContinuation<Step, Never>?
  private(set) var isFinished = false
  var isCancelled = false
  /// The connection running it, while one does.
  weak var connection: HTTPClientConnection?

  init(request: PreparedRequest, deadline: Int64, needsFreshConnection: Bool) {
    self.request = request
    self.deadline = deadline
    self.needsFreshConnection = needsFreshConnection
  }

  var key: HTTPConnectionPool.Key { request.key }

  func resume(_ step: Step) {
    if case .done = step {
      isFinished = true
      connection = nil
    }
    continuation?.resume(returning: step)
    continuation = nil
  }

  /// Ends the exchange with `reason`, before any connection ran it.
  func fail(_ reason: HTTPClientError.Reason) {
    resume(.notSent(reason))
  }
}
