import Glibc

/// One TCP client connection on a ``ClientLoop`` that carries a protocol Wire has no codec
/// for (NATS): the caller writes bytes and is handed the bytes that come, and may switch the
/// connection to TLS part way (NATS sends its `INFO` line in plaintext first).
///
/// As ``ClientChannel``: everything happens on the loop's thread, the callbacks are called
/// there and the channel may be used only there; whatever ends the connection other than
/// ``close()`` is told once to ``onClose``. Writes are buffered up to 4 MiB; a peer that reads
/// nothing for 30 s past that is dropped.
public final class StreamChannel: ConnectionHandler, @unchecked Sendable {
  // @unchecked: created on the loop's thread and used only there.

  /// Why a stream ended.
  public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer closed the connection, or it broke (reset, a write that could not go).
    case closed
    /// The TLS handshake failed.
    case tls(String)

    public var description: String {
      switch self {
      case .closed: "the connection closed"
      case .tls(let reason): "TLS failed: \(reason)"
      }
    }
  }

  /// Each run of bytes as it comes (plaintext, after TLS).
  public var onBytes: ((UnsafeRawBufferPointer) -> Void)?
  /// The TLS handshake ``startTLS(_:serverName:)`` began is done.
  public var onTLSEstablished: (() -> Void)?
  /// The connection ended, for the reason given; called once, never after ``close()``.
  public var onClose: ((Failure) -> Void)?

  private let connection: TCPConnection
  private var failure: Failure?

  private init(_ connection: TCPConnection) {
    self.connection = connection
    connection.maxBufferedBytes = 4 << 20
    connection.handler = self
    connection.resumeReading()
  }

  /// Connects to `host` (a numeric IPv4 or IPv6 address) on `loop`; `done` hears the channel,
  /// or why there is none, on the loop's thread.
  public static func connect(
    host: String, port: Int, on loop: ClientLoop, timeout: Duration = .seconds(10),
    then done: @escaping @Sendable (Result<StreamChannel, ConnectError>) -> Void
  ) {
    loop.connect(host: host, port: port, timeout: timeout) { done($0.map(StreamChannel.init)) }
  }

  /// `host` as a numeric address (IPv4 first) for ``connect(host:port:on:timeout:then:)``,
  /// resolving a name (blocking: `getaddrinfo`; call it off the loop's thread); nil when it
  /// has none.
  public static func numericAddress(of host: String) -> String? {
    guard let found = try? ClientConnect.addresses(of: host, port: 0, flags: 0) else {
      return nil
    }
    return (found.first { $0.family == AF_INET } ?? found.first)?.description
  }

  /// Writes `bytes` (through TLS once started).
  public func send(_ bytes: [UInt8]) {
    connection.write(bytes)
  }

  /// Makes the connection the client side of TLS from here on: the server's certificate must
  /// chain to `context`'s trust roots and be valid for `serverName`. ``onTLSEstablished``
  /// hears when it is done; what is written meanwhile waits for it.
  public func startTLS(_ context: TLSContext, serverName: String) throws(TLSError) {
    try connection.startTLS(client: context, serverName: serverName, handshakeTimeout: .seconds(10))
  }

  /// Closes the connection; ``onClose`` is not called.
  public func close() {
    onClose = nil
    connection.close()
  }

  // MARK: - ConnectionHandler

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    onBytes?(bytes)
  }

  func peerClosed(on connection: TCPConnection) {
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {}

  func tick(now: Int64, on connection: TCPConnection) {}

  func tlsEstablished(on connection: TCPConnection) {
    onTLSEstablished?()
  }

  func tlsFailed(_ error: TLSError, on connection: TCPConnection) {
    failure = .tls("\(error)")
  }

  func closed(on connection: TCPConnection) {
    let onClose = self.onClose
    self.onClose = nil
    onClose?(failure ?? .closed)
  }
}
