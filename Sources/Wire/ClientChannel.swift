import Glibc

/// One TCP client connection on a ``ClientLoop``, for a load generator: it writes the bytes it
/// is given, and hands over what Wire's codecs decode from what comes back. In HTTP/1.1, each
/// request's response in order (``HTTPResponseParser``; requests may be pipelined); after
/// ``upgradeToWebSocket(target:hostHeader:headers:then:)``, each WebSocket message
/// (``WebSocketDecoder`` as a client: pings are answered, pongs dropped).
///
/// It is the layer under ``HTTPClient`` and ``WebSocketClient`` without their pools, retries,
/// timers and tasks: requests and frames are bytes the caller made, and everything happens on
/// the loop's thread. The callbacks are called there, and the channel may be used only there
/// (in a callback, or a job given to ``ClientLoop/execute(_:)``); a caller that waits bounds
/// its wait itself. Whatever ends the connection other than ``close()`` (the server's FIN or
/// reset, bytes the codecs refuse) is told once to ``onClose``.
public final class ClientChannel: ConnectionHandler, @unchecked Sendable {
  // @unchecked: created on the loop's thread and used only there; another thread holds it
  // only to hand it back to that thread through `ClientLoop.execute`.

  /// Why a channel ended; each is a server that stopped or broke the protocol.
  public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server closed the connection (FIN or reset).
    case closed
    /// A response broke HTTP/1.1 or a limit.
    case invalidResponse(HTTPResponseParseError)
    /// Bytes came when no response was expected.
    case unexpectedBytes
    /// The server answered the WebSocket upgrade with this status instead of 101.
    case upgradeRefused(status: Int)
    /// The server's 101 broke the opening handshake.
    case invalidHandshake(String)
    /// A WebSocket frame broke RFC 6455.
    case webSocket(WebSocketCloseCode, String)

    public var description: String {
      switch self {
      case .closed: "the server closed the connection"
      case .invalidResponse(let error): "invalid response: \(error)"
      case .unexpectedBytes: "the server sent bytes nobody asked for"
      case .upgradeRefused(let status): "the server refused the WebSocket with \(status)"
      case .invalidHandshake(let reason): "invalid WebSocket handshake: \(reason)"
      case .webSocket(let code, let reason): "WebSocket failure \(code.rawValue): \(reason)"
      }
    }
  }

  /// Each response, in the order of the requests.
  public var onResponse: ((HTTPResponseHead, [UInt8]) -> Void)?
  /// Each WebSocket text or binary message, and the server's close frame.
  public var onMessage: ((WebSocketDecoder.Event) -> Void)?
  /// The connection ended, for the reason given; called once, never after ``close()``.
  public var onClose: ((Failure) -> Void)?

  private let connection: TCPConnection
  /// Decodes responses once a request is sent, until an upgrade.
  private var responses: HTTPResponseParser?
  /// The methods of the requests whose responses have not come yet, oldest first.
  private var pending: [HTTPMethod] = []
  /// The upgrade asked for: its key, and who waits for the answer.
  private var upgrade: (key: String, done: (Result<Void, Failure>) -> Void)?
  /// Decodes frames after the upgrade.
  private var frames: WebSocketDecoder?
  private var failure: Failure?

  private init(_ connection: TCPConnection) {
    self.connection = connection
    connection.handler = self
    connection.resumeReading()
  }

  /// Connects to `host` (a numeric IPv4 or IPv6 address) on `loop`; `done` hears the channel,
  /// or why there is none, on the loop's thread.
  public static func connect(
    host: String, port: Int, on loop: ClientLoop, timeout: Duration = .seconds(10),
    then done: @escaping @Sendable (Result<ClientChannel, ConnectError>) -> Void
  ) {
    loop.connect(host: host, port: port, timeout: timeout) { done($0.map(ClientChannel.init)) }
  }

  /// Writes one request (its whole bytes); its response comes to ``onResponse`` after those of
  /// the requests before it. `method` is the request's: the answer to a HEAD has no body.
  public func send(request: [UInt8], method: HTTPMethod = .get) {
    if responses == nil {
      responses = HTTPResponseParser(requestMethod: method)
    } else if pending.isEmpty {
      responses?.expectResponse(to: method)
    }
    pending.append(method)
    connection.write(request)
  }

  /// Writes bytes as they are: WebSocket frames the caller encoded (masked, as a client's must
  /// be).
  public func send(_ bytes: [UInt8]) {
    connection.write(bytes)
  }

  /// Asks to switch to WebSocket for `target` on `hostHeader`, with `headers` (such as
  /// `Authorization`); `done` hears whether the server switched. Send nothing else until then.
  public func upgradeToWebSocket(
    target: String, hostHeader: String, headers: HTTPHeaders = [:],
    then done: @escaping (Result<Void, Failure>) -> Void
  ) {
    let key = WebSocketHandshake.makeKey()
    upgrade = (key, done)
    responses = HTTPResponseParser(upgradeLimits: HTTPResponseParser.Limits())
    connection.write(
      WebSocketHandshake.request(target: target, hostHeader: hostHeader, key: key, headers: headers)
    )
  }

  /// Closes the connection; ``onClose`` is not called.
  public func close() {
    onClose = nil
    connection.close()
  }

  // MARK: - ConnectionHandler

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    if frames != nil {
      frames?.append(bytes)
      decodeFrames()
    } else if responses != nil {
      responses?.append(bytes)
      decodeResponses()
    } else {
      fail(.unexpectedBytes)
    }
  }

  func peerClosed(on connection: TCPConnection) {
    // A body that ends with the connection ends here.
    if frames == nil, !pending.isEmpty, let event = responses?.finish(),
      case .response(let head, let body) = event
    {
      pending.removeFirst()
      onResponse?(head, body)
    }
    fail(.closed)
  }

  func writeDrained(on connection: TCPConnection) {}

  func tick(now: Int64, on connection: TCPConnection) {}

  func closed(on connection: TCPConnection) {
    let onClose = self.onClose
    self.onClose = nil
    onClose?(failure ?? .closed)
  }

  // MARK: - Decoding

  private func decodeResponses() {
    while let event = responses?.next() {
      switch event {
      case .failure(let error):
        return fail(.invalidResponse(error))
      case .response(let head, _) where upgrade != nil:
        return switched(head)
      case .response(let head, let body):
        guard !pending.isEmpty else { return fail(.unexpectedBytes) }
        pending.removeFirst()
        if let next = pending.first { responses?.expectResponse(to: next) }
        onResponse?(head, body)
      }
    }
    if pending.isEmpty, let responses, responses.bytesAfterResponse > 0 {
      fail(.unexpectedBytes)
    }
  }

  /// The answer to the upgrade request: frames from now on, or the reason not.
  private func switched(_ head: HTTPResponseHead) {
    guard let (key, done) = upgrade else { return }
    upgrade = nil
    let outcome: Result<Void, Failure>
    if head.status.code != 101 {
      outcome = .failure(.upgradeRefused(status: head.status.code))
    } else if let problem = WebSocketHandshake.problem(withAnswer: head.headers, toKey: key) {
      outcome = .failure(.invalidHandshake(problem))
    } else {
      outcome = .success(())
    }
    guard case .success = outcome else {
      done(outcome)
      return close()
    }
    var decoder = WebSocketDecoder(role: .client)
    decoder.append(contentsOf: responses?.takeRemainingBytes() ?? [])
    responses = nil
    frames = decoder
    done(outcome)
    decodeFrames()
  }

  private func decodeFrames() {
    while !connection.isClosed, let event = frames?.next() {
      switch event {
      case .ping(let payload):
        connection.write(
          WebSocketFrame.encode(opcode: .pong, payload: payload, maskingKey: randomMaskingKey()))
      case .pong:
        continue
      case .failure(let code, let reason):
        return fail(.webSocket(code, reason))
      case .text, .binary, .close:
        onMessage?(event)
      }
    }
  }

  private func fail(_ reason: Failure) {
    guard !connection.isClosed else { return }
    failure = reason
    connection.close()
  }
}
