import ChatAPI
import ChatData
import Wire

/// The live `LiveTransport`: `Wire`'s WebSocket client (URLSession's WebSocket does not work on
/// Linux with Debian's libcurl). Pings find a dead socket within `pingInterval + pingTimeout`;
/// then `messages` ends and the engine reconnects and catches up.
public struct WireLiveTransport: LiveTransport {
  public let url: String
  public let configuration: WebSocketConfiguration
  public let connectTimeout: Duration
  public let tls: TLSContext?

  /// - Parameters:
  ///   - url: `ws://host:port/v1/live`, or `wss://host:port/v1/live` for TLS.
  ///   - tls: for `wss://`, the client context the server's certificate is verified with (a
  ///     CA file); nil trusts the system's store, or the file named by `SSL_CERT_FILE`. A
  ///     certificate that does not verify is reported as `.offline` with the reason, and
  ///     retried like any connect failure.
  public init(
    url: String, configuration: WebSocketConfiguration = Self.defaultConfiguration,
    connectTimeout: Duration = .seconds(10), tls: TLSContext? = nil
  ) {
    self.url = url
    self.configuration = configuration
    self.connectTimeout = connectTimeout
    self.tls = tls
  }

  /// A ping after 20 s of silence, dead 10 s later.
  public static var defaultConfiguration: WebSocketConfiguration {
    var configuration = WebSocketConfiguration()
    configuration.pingInterval = .seconds(20)
    configuration.pingTimeout = .seconds(10)
    return configuration
  }

  public func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    var fields: HTTPHeaders = [:]
    for (name, value) in headers { fields.add(name: name, value: value) }
    do {
      let socket = try await WebSocketClient.connect(
        to: url, headers: fields, configuration: configuration, connectTimeout: connectTimeout,
        tls: tls)
      return WireSocket(socket: socket)
    } catch .handshakeRejected(let status, _) {
      throw .rejected(status: status)
    } catch .timedOut {
      throw .timeout
    } catch {
      throw .offline(error.description)
    }
  }
}

/// A `Wire.WebSocket` as the engine's `LiveSocket`.
struct WireSocket: LiveSocket {
  let socket: WebSocket
  let messages: AsyncStream<String>

  init(socket: WebSocket) {
    self.socket = socket
    messages = socket.makeMessageStream()
  }

  func send(_ text: String) async throws {
    try socket.send(text: text)
  }

  func close() async {
    socket.close()
    await socket.waitUntilClosed()
  }
}
