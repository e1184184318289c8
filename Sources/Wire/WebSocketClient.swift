import Glibc

/// Opens client WebSockets, `ws://` and `wss://` (TLS 1.2+, the server's certificate verified
/// against the trust roots of the ``TLSContext`` given, the system's by default).
///
/// The connection runs on a shared event loop thread of the Wire module, so the caller's
/// executor is never blocked on I/O: `connect` suspends until the handshake is done, and the
/// returned ``WebSocket`` is used from any executor (a custom serial one included).
///
/// ```swift
/// do {
///   let socket = try await WebSocketClient.connect(
///     to: "ws://127.0.0.1:8080/v1/live", headers: ["Authorization": "Bearer \(token)"])
///   for await text in socket.messages { … }   // ends when the socket closes or dies
/// } catch .handshakeRejected(let status, _) where status == 401 {
///   // refresh the token, then connect again
/// }
/// ```
public enum WebSocketClient {
  /// Connects and performs the opening handshake.
  ///
  /// - Parameters:
  ///   - url: `ws://host[:port][/path][?query]` or `wss://…` (port 443 by default).
  ///   - headers: extra header fields for the upgrade request, such as `Authorization`.
  ///   - configuration: limits and keep-alive; a dead server is found within
  ///     `pingInterval + pingTimeout`.
  ///   - connectTimeout: the limit for the TCP connect, the TLS handshake and the WebSocket
  ///     handshake together.
  ///   - tls: for `wss://`, the client context whose trust roots verify the server (nil: the
  ///     system store, or `SSL_CERT_FILE`); the certificate must be valid for the URL's host.
  ///     Unused for `ws://`.
  /// - Throws: ``WebSocketClientError``; ``WebSocketClientError/handshakeRejected(status:headers:)``
  ///   when the server answered with an HTTP status instead of switching (401: refresh the
  ///   token); ``WebSocketClientError/tls(_:)`` when the TLS handshake failed. Cancelling the
  ///   calling task cancels the attempt.
  public static func connect(
    to url: String, headers: HTTPHeaders = [:],
    configuration: WebSocketConfiguration = WebSocketConfiguration(),
    connectTimeout: Duration = .seconds(10), tls: TLSContext? = nil
  ) async throws(WebSocketClientError) -> WebSocket {
    guard let target = WebSocketURL(url) else { throw .invalidURL(url) }
    var secure: (context: TLSContext, serverName: String)?
    if target.isSecure {
      do {
        secure = (try TLSContext.client(tls), target.host)
      } catch {
        throw .tls(error)
      }
    }
    let deadline = monotonicMilliseconds() + connectTimeout.milliseconds
    let loop = EventLoopGroup.shared.nextLoop()
    let connection: TCPConnection
    do {
      connection = try await ClientConnect.connect(
        host: target.host, port: target.port, timeout: connectTimeout, deadline: deadline,
        on: loop)
    } catch .timedOut {
      throw .timedOut
    } catch .cancelled {
      throw .cancelled
    } catch {
      throw .connectionFailed("\(error)")
    }
    // A TLS step (wss://) goes here: on the connected socket, before the upgrade request.
    let key = WebSocketHandshake.makeKey()
    let handshake = WebSocketClientHandshake(
      connection: connection,
      request: WebSocketHandshake.request(
        target: target.requestTarget, hostHeader: target.hostHeader, key: key, headers: headers),
      key: key, configuration: configuration, deadline: deadline, tls: secure)
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        loop.execute { handshake.start(continuation) }
      }
    } onCancel: {
      loop.execute { handshake.cancel() }
    }
    return try result.get()
  }
}

/// Why a WebSocket could not be opened; each case says what to do.
public enum WebSocketClientError: Error, Sendable, CustomStringConvertible {
  /// The URL is not `ws://host[:port]/path` or `wss://…`: fix the configuration.
  case invalidURL(String)
  /// The server could not be reached (refused, unreachable, unknown host): retry later.
  case connectionFailed(String)
  /// No handshake within the connect timeout: retry later.
  case timedOut
  /// The server answered the upgrade with this HTTP status instead of 101; on 401 refresh
  /// the token and retry, on 5xx retry later.
  case handshakeRejected(status: Int, headers: HTTPHeaders)
  /// The server answered 101 but broke the handshake (wrong accept value, an extension or
  /// subprotocol that was not asked for): a server bug; retry later.
  case invalidHandshake(String)
  /// The calling task was cancelled.
  case cancelled
  /// The TLS handshake of a `wss://` connection failed, or its context could not be made; the
  /// ``TLSError`` says what to fix (most often the server's certificate or the trusted CA).
  case tls(TLSError)

  public var description: String {
    switch self {
    case .invalidURL(let url): "Not a ws:// or wss:// URL: \(url)"
    case .connectionFailed(let reason): "Connection failed: \(reason)"
    case .timedOut: "The WebSocket handshake timed out."
    case .handshakeRejected(let status, _): "The server refused the WebSocket with \(status)."
    case .invalidHandshake(let reason): "Invalid WebSocket handshake: \(reason)"
    case .cancelled: "Cancelled."
    case .tls(let error): error.description
    }
  }
}

/// The parts of a `ws://` or `wss://` URL the handshake needs.
struct WebSocketURL {
  var host: String
  var port: Int
  var hostHeader: String
  var requestTarget: String
  var isSecure = false

  init?(_ text: String) {
    let lowercased = text.lowercased()
    guard lowercased.hasPrefix("ws://") || lowercased.hasPrefix("wss://") else { return nil }
    isSecure = lowercased.hasPrefix("wss://")
    let rest = text.dropFirst(isSecure ? 6 : 5)
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    var target = String(rest[authorityEnd...])
    if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
    guard !authority.isEmpty, !authority.contains("@") else { return nil }
    var hostPart = Substring(authority)
    var port = isSecure ? 443 : 80
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      hostPart = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if after.hasPrefix(":") {
        guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
        port = value
      } else if !after.isEmpty {
        return nil
      }
    } else if let colon = authority.lastIndex(of: ":") {
      hostPart = authority[..<colon]
      guard let value = Int(authority[authority.index(after: colon)...]),
        (1...65535).contains(value)
      else { return nil }
      port = value
    }
    guard !hostPart.isEmpty, !target.contains(" ") else { return nil }
    host = String(hostPart)
    self.port = port
    hostHeader = String(authority)
    requestTarget = target
  }
}

/// The client's side of the opening handshake, on the loop: send the upgrade request on the
/// connected socket, check the response, then hand the socket to a ``WebSocketChannel``.
final class WebSocketClientHandshake: ConnectionHandler, @unchecked Sendable {
  // @unchecked: created on the caller's thread, then touched only on the loop's thread.
  typealias Outcome = Result<WebSocket, WebSocketClientError>

  private let connection: TCPConnection
  private let tls: (context: TLSContext, serverName: String)?
  private let request: [UInt8]
  private let key: String
  private let configuration: WebSocketConfiguration
  private let deadline: Int64
  private var continuation: CheckedContinuation<Outcome, Never>?
  private var cancelled = false
  /// The answer to the upgrade request, decoded as any response (a 101 without a body ends
  /// it); its head limited to 16 KiB.
  private var response = HTTPResponseParser(
    upgradeLimits: {
      var limits = HTTPResponseParser.Limits()
      limits.headerSection = 16 * 1024
      return limits
    }())

  /// - Parameter connection: from ``ClientConnect``: connected, reading paused, no handler.
  init(
    connection: TCPConnection, request: [UInt8], key: String,
    configuration: WebSocketConfiguration, deadline: Int64,
    tls: (context: TLSContext, serverName: String)? = nil
  ) {
    self.connection = connection
    self.tls = tls
    self.request = request
    self.key = key
    self.configuration = configuration
    self.deadline = deadline
  }

  func start(_ continuation: CheckedContinuation<Outcome, Never>) {
    self.continuation = continuation
    guard !cancelled else {
      // Cancelled before the loop got to it: the cancel job ran first.
      finish(.failure(.cancelled))
      connection.close()
      return
    }
    guard connection.loop.now < deadline else {
      finish(.failure(.timedOut))
      connection.close()
      return
    }
    connection.handler = self
    connection.writeTimeout = deadline - connection.loop.now
    if let tls {
      do {
        // The upgrade request waits in the connection until the handshake is done.
        try connection.startTLS(client: tls.context, serverName: tls.serverName)
      } catch {
        finish(.failure(.tls(error)))
        connection.close()
        return
      }
    }
    connection.write(request)
    connection.resumeReading()
  }

  /// Cancels the attempt; does nothing once the handshake has finished either way.
  func cancel() {
    cancelled = true
    guard continuation != nil else { return }
    finish(.failure(.cancelled))
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {}

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    guard continuation != nil else { return }
    response.append(bytes)
    switch response.next() {
    case .failure(let error)?:
      finish(.failure(.invalidHandshake(error.message)))
      connection.close()
    case .response(let head, _)?:
      accept(head)
    case nil:
      // A refusal is known from its head: its body does not matter.
      if let head = response.head, head.status.code != 101 { accept(head) }
    }
  }

  /// The head of the answer to the upgrade request: the socket opens, or the reason it does
  /// not.
  private func accept(_ head: HTTPResponseHead) {
    guard head.status.code == 101 else {
      finish(.failure(.handshakeRejected(status: head.status.code, headers: head.headers)))
      connection.close()
      return
    }
    if let problem = WebSocketHandshake.problem(withAnswer: head.headers, toKey: key) {
      finish(.failure(.invalidHandshake(problem)))
      connection.close()
      return
    }
    let (_, socket) = WebSocketChannel.open(
      role: .client, connection: connection, configuration: configuration,
      leftover: response.takeRemainingBytes())
    finish(.success(socket))
  }

  func peerClosed(on connection: TCPConnection) {
    finish(.failure(.connectionFailed("The server closed the connection during the handshake.")))
    connection.close()
  }

  func tick(now: Int64, on connection: TCPConnection) {
    if now >= deadline {
      finish(.failure(.timedOut))
      connection.close()
    }
  }

  func tlsFailed(_ error: TLSError, on connection: TCPConnection) {
    finish(.failure(.tls(error)))
  }

  func closed(on connection: TCPConnection) {
    let reason =
      connection.lastError != 0
      ? "The connection closed during the handshake: \(SystemError("recv", errno: connection.lastError))"
      : "The connection closed during the handshake."
    finish(.failure(.connectionFailed(reason)))
  }

  private func finish(_ outcome: Outcome) {
    continuation?.resume(returning: outcome)
    continuation = nil
  }
}
