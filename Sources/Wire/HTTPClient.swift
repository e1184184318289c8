/// An HTTP/1.1 client (`http://` and `https://`) over Wire's event loop, in the shape of
/// AsyncHTTPClient: `execute(request, timeout:)` in, a complete response out. Over TLS the
/// server's certificate is verified against ``Configuration/tls``'s trust roots and for the
/// URL's host; a failed handshake is ``HTTPClientError/Reason/tls(_:)``.
///
/// Connections are kept alive and reused: a small pool per host and port, each connection
/// carrying one request at a time (see ``Configuration``). The timeout bounds the whole
/// exchange: waiting for a connection, connecting, writing, reading, and the one retry below.
///
/// **Nothing a server or the network does crashes or hangs a request.** A response cut at any
/// byte, by a FIN or a reset, in the status line, the headers, the body or a chunk header, is
/// ``HTTPClientError/Reason/connectionClosed`` ("the connection closed before the response was
/// complete"); malformed bytes are ``HTTPClientError/Reason/invalidResponse(_:)``; silence is
/// ``HTTPClientError/Reason/timedOut``. Every error says, in
/// ``HTTPClientError/progress``, how far the request got, so the caller can tell whether the
/// server may have acted on it.
///
/// **The one retry.** A server may close an idle keep-alive connection just as a request goes
/// out on it. When a request fails that way (on a reused connection, the connection closed,
/// no byte of a response), it is sent once more on a fresh connection, if it is
/// ``HTTPClientRequest/isIdempotent`` or provably never reached the server. Nothing else is
/// retried: that is the caller's decision.
///
/// The response parser is ``HTTPResponseParser``, pure and fuzzed. The I/O runs on the loop
/// the WebSocket client uses, so the caller's executor never blocks.
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.execute(
///   HTTPClientRequest(url: "http://127.0.0.1:8080/healthz"), timeout: .seconds(5))
/// ```
///
/// ## Topics
/// - ``Configuration``
/// - ``execute(_:timeout:)``
/// - ``HTTPClientError``
/// - ``shutdown()``
public final class HTTPClient: Sendable {
  /// Connection limits and timeouts; each has a safe default.
  public struct Configuration: Sendable {
    /// The limit for each address's TCP connect (within the request's own timeout).
    public var connectTimeout: Duration = .seconds(10)
    /// Connections open at once to one host and port; a request finding them all busy waits
    /// for one.
    public var maxConnectionsPerHost: Int = 4
    /// How long an unused connection is kept. Below the server's own idle timeout (the
    /// reference server's is 60 s), so the client usually closes first.
    public var idleTimeout: Duration = .seconds(30)
    /// Response size limits.
    public var limits = HTTPResponseParser.Limits()
    /// For `https://`: the client context whose trust roots verify servers; nil is the
    /// system's store (or `SSL_CERT_FILE`). There is no way to turn verification off.
    public var tls: TLSContext?

    public init() {}
  }

  public let configuration: Configuration
  private let loop: EventLoop
  private let pool: HTTPConnectionPool

  public convenience init(configuration: Configuration = Configuration()) {
    self.init(configuration: configuration, observer: nil)
  }

  /// A client whose pool reports what it does to `observer` (tests wait on it).
  init(
    configuration: Configuration, observer: (@Sendable (HTTPConnectionPool.Event) -> Void)?
  ) {
    self.configuration = configuration
    loop = EventLoopGroup.shared.nextLoop()
    pool = HTTPConnectionPool(
      loop: loop, maxPerHost: configuration.maxConnectionsPerHost,
      idleTimeout: configuration.idleTimeout.milliseconds, limits: configuration.limits,
      observer: observer)
  }

  deinit {
    let pool = pool
    loop.execute { pool.shutdown() }
  }

  /// Sends `request` and returns its complete response.
  ///
  /// - Parameter timeout: the limit for the whole exchange.
  /// - Throws: ``HTTPClientError``. Cancelling the calling task ends the request at once
  ///   (`.cancelled`) and closes its connection.
  public func execute(_ request: HTTPClientRequest, timeout: Duration)
    async throws(HTTPClientError) -> HTTPClientResponse
  {
    let prepared = try PreparedRequest(request)
    let deadline = monotonicMilliseconds() + timeout.milliseconds
    var needsFreshConnection = false
    while true {
      let exchange = HTTPExchange(
        request: prepared, deadline: deadline, needsFreshConnection: needsFreshConnection)
      let pool = pool
      var step = await run(exchange) { pool.submit(exchange) }
      if case .connect = step { step = await connect(exchange) }
      guard case .done(let outcome) = step else {
        preconditionFailure("an exchange asked to connect twice")
      }
      switch outcome {
      case .success(let response):
        return response
      case .failure(let failure):
        if !needsFreshConnection && failure.allowsRetry(idempotent: request.isIdempotent) {
          needsFreshConnection = true
          pool.observer?(.retried)
          continue
        }
        throw failure.error
      }
    }
  }

  /// Fails the requests waiting for a connection, closes the idle connections, and makes
  /// every later request fail with ``HTTPClientError/Reason/shutDown``. Requests in flight
  /// finish; their connections close after them.
  public func shutdown() async {
    let pool = pool
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      loop.execute {
        pool.shutdown()
        continuation.resume()
      }
    }
  }

  /// What the pool has done so far (for tests and benchmarks).
  func statistics() async -> HTTPConnectionPool.Statistics {
    let pool = pool
    return await withCheckedContinuation { continuation in
      loop.execute { continuation.resume(returning: pool.currentStatistics()) }
    }
  }

  /// Runs `job` on the loop with `exchange`'s continuation set, and waits for its next step.
  private func run(_ exchange: HTTPExchange, _ job: @escaping @Sendable () -> Void) async
    -> HTTPExchange.Step
  {
    let loop = loop
    let pool = pool
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        loop.execute {
          exchange.continuation = continuation
          job()
        }
      }
    } onCancel: {
      loop.execute { pool.cancel(exchange) }
    }
  }

  /// Opens a connection in the slot the pool reserved for `exchange`, and starts it there.
  private func connect(_ exchange: HTTPExchange) async -> HTTPExchange.Step {
    let key = exchange.key
    let pool = pool
    // Over TLS, the client context first: no connection is opened for a trust that cannot
    // be loaded.
    var context: TLSContext?
    if key.secure {
      do {
        context = try TLSContext.client(configuration.tls)
      } catch {
        loop.execute { pool.connectFailed(key) }
        return .notSent(.tls(error))
      }
    }
    let tcp: TCPConnection
    do {
      tcp = try await ClientConnect.connect(
        host: key.host, port: key.port, timeout: configuration.connectTimeout,
        deadline: exchange.deadline, on: loop)
    } catch {
      loop.execute { pool.connectFailed(key) }
      let reason: HTTPClientError.Reason
      switch error {
      case .cancelled: reason = .cancelled
      case .timedOut where monotonicMilliseconds() >= exchange.deadline: reason = .timedOut
      default: reason = .connectFailed(error)
      }
      return .notSent(reason)
    }
    guard let context else { return await run(exchange) { pool.start(exchange, on: tcp) } }
    // The request waits in the connection until the handshake is done; a failed handshake
    // reaches the connection's handler (`tlsFailed`).
    return await run(exchange) {
      do throws(TLSError) {
        try tcp.startTLS(client: context, serverName: key.host)
      } catch {
        tcp.close()
        pool.connectFailed(key)
        exchange.resume(.notSent(.tls(error)))
        return
      }
      pool.start(exchange, on: tcp)
    }
  }
}
