import Glibc
import Synchronization

/// An HTTP/1.1 server with WebSocket upgrades, on epoll event loops (one per core).
///
/// The loops accept, read, parse and write; each complete request runs `handler` in its own
/// Swift task, and the response is written back by the connection's loop. A connection serves
/// one request at a time, in order (pipelined requests wait, unread, until the previous
/// response is written). Parser errors never reach the handler: the server answers them with
/// the JSON error shape of API.md and closes the connection.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz") { _ in .text("ok") }
/// router.get("/v1/live") { request in
///   guard request.headers["Authorization"] == "Bearer good" else {
///     return .error(.unauthorized, code: "unauthorized", message: "Sign in again.")
///   }
///   return .webSocket { socket in
///     for await text in socket.messages { try? socket.send(text: text) }
///   }
/// }
/// let server = HTTPServer(configuration: .init(port: 0), router: router)
/// let port = try server.start()
/// // …
/// await server.shutdown()
/// ```
///
/// ## Topics
/// - ``Configuration``
/// - ``start()``
/// - ``shutdown()``
public final class HTTPServer: Sendable {
  /// The server's settings; every timeout and limit has a safe default.
  public struct Configuration: Sendable {
    /// The address to listen on: `127.0.0.1` (default), `0.0.0.0`, `::1`, or a host name.
    public var host: String
    /// The port; 0 picks a free one (``HTTPServer/start()`` returns it).
    public var port: Int
    /// Event loops (threads); one per core by default.
    public var loopCount: Int
    public var backlog: Int32 = 1024
    /// Open connections (WebSockets included) beyond which accepting pauses until one closes.
    public var maxConnections: Int = 10_000
    /// Request size limits (request line, headers, body).
    public var limits = HTTPRequestParser.Limits()
    /// Time from the first byte of a request to the end of its header section (408 after);
    /// also the time a new connection has to send its first byte (closed silently after), and
    /// with TLS the time it has to finish the handshake (then it has this again for its first
    /// byte of plaintext).
    public var headerTimeout: Duration = .seconds(10)
    /// Time to receive a body once the headers are in (408 after).
    public var bodyTimeout: Duration = .seconds(30)
    /// Time a keep-alive connection may wait for its next request before it is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// Time a response may make no write progress before the connection is dropped.
    public var writeTimeout: Duration = .seconds(30)
    /// How long ``HTTPServer/shutdown()`` waits for in-flight requests and WebSocket closing
    /// handshakes before closing what is left.
    public var shutdownTimeout: Duration = .seconds(10)
    /// Settings of upgraded WebSockets, unless the upgrade response gives its own.
    public var webSocket = WebSocketConfiguration()
    /// How often the loops check timeouts.
    public var tickInterval: Duration = .milliseconds(250)
    /// Told of every request the server answers itself, without the handler: a parse error, a
    /// timeout, a refused WebSocket handshake (for a log line and a metric). Runs on a loop's
    /// thread: return quickly.
    public var onRejected: (@Sendable (HTTPRejection) -> Void)?
    /// TLS for every connection (HTTPS, and WSS for the upgrades), made from the server's
    /// certificate chain and key; nil serves plaintext. On a TLS server a peer that speaks
    /// plaintext gets a plaintext 400 (`tls_required`, reported to ``onRejected``) and is closed.
    public var tls: TLSContext?
    /// Told of every TLS handshake that failed (a stalled one, a plaintext peer, a client that
    /// refused the certificate), with the peer's address. Runs on a loop's thread: return
    /// quickly.
    public var onTLSFailure: (@Sendable (TLSFailure) -> Void)?

    public init(host: String = "127.0.0.1", port: Int = 0, loopCount: Int? = nil) {
      self.host = host
      self.port = port
      self.loopCount = loopCount ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
  }

  /// Answers one request; runs in its own task.
  public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

  public let configuration: Configuration
  private let handler: Handler
  private let running = Mutex<Running?>(nil)

  private struct Running {
    let group: EventLoopGroup
    let loops: [ServerLoop]
    let listener: Int32
  }

  public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
    self.configuration = configuration
    self.handler = handler
  }

  /// A server whose requests go to `router`.
  public convenience init(configuration: Configuration = Configuration(), router: Router) {
    self.init(configuration: configuration) { request in await router.handle(request) }
  }

  /// Binds, starts the loops and returns the bound port. Throws ``SystemError`` when the
  /// address cannot be bound.
  @discardableResult
  public func start() throws -> Int {
    guard running.withLock({ $0 == nil }) else { throw SystemError("start", errno: EALREADY) }
    let (listener, port) = try Socket.listen(
      host: configuration.host, port: configuration.port, backlog: configuration.backlog)
    let group = try EventLoopGroup(
      count: configuration.loopCount, name: "wire-http",
      tickMilliseconds: configuration.tickInterval.milliseconds, start: false)
    let perLoop = max(1, configuration.maxConnections / group.loops.count)
    let loops = group.loops.map {
      ServerLoop(
        loop: $0, listener: listener, configuration: configuration, maxConnections: perLoop,
        handler: handler)
    }
    // Registered before the threads start, so no other thread touches a loop's table.
    for serverLoop in loops { try serverLoop.attach() }
    group.start()
    running.withLock { $0 = Running(group: group, loops: loops, listener: listener) }
    return port
  }

  /// Stops gracefully: stops accepting, lets in-flight requests finish (their responses carry
  /// `Connection: close`), closes idle connections, closes WebSockets with 1001, and after
  /// ``Configuration/shutdownTimeout`` closes whatever is left. Returns when every connection
  /// is closed and the loops have stopped.
  public func shutdown() async {
    guard
      let running = running.withLock({ state in
        defer { state = nil }
        return state
      })
    else {
      return
    }
    await withTaskGroup(of: Void.self) { tasks in
      for serverLoop in running.loops {
        tasks.addTask { await serverLoop.shutdown() }
      }
    }
    close(running.listener)
    running.group.stop()
  }
}

/// A TLS handshake that failed, as ``HTTPServer/Configuration/onTLSFailure`` hears of it.
public struct TLSFailure: Sendable, Equatable {
  public let error: TLSError
  /// The peer's numeric IP address.
  public let remoteAddress: String
}

/// A request the server answered itself, as ``HTTPServer/Configuration/onRejected`` hears of it.
public struct HTTPRejection: Sendable, Equatable {
  /// The status sent.
  public let status: HTTPStatus
  /// The error code of the JSON body (`too_large`, `timeout`, …).
  public let code: String
  /// The method, when the request line was read.
  public let method: String?
  /// The peer's numeric IP address.
  public let remoteAddress: String
}
