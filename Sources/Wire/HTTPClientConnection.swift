import Glibc

/// One keep-alive connection of an ``HTTPClient``, on the client's loop: writes a request,
/// parses its response, and goes back to its pool between exchanges. One exchange at a time.
///
/// Whatever ends an exchange early becomes a typed failure of that exchange, never a crash or
/// a hang: the server's FIN before the response is complete (the parser says `truncated`), a
/// reset or a socket error (the connection closes), malformed bytes, the deadline. An idle
/// connection that receives anything (the server's FIN, a stray byte) or stays idle past the
/// idle timeout is closed, and its pool forgets it.
final class HTTPClientConnection: ConnectionHandler, @unchecked Sendable {
  // @unchecked: created and touched only on the loop's thread.
  let connection: TCPConnection
  let key: HTTPConnectionPool.Key
  /// Whether the pool counts this connection; false once retired or closed.
  var isAttached = true
  private weak var pool: HTTPConnectionPool?
  private let limits: HTTPResponseParser.Limits
  private let idleTimeout: Int64
  private var exchange: HTTPExchange?
  private var parser = HTTPResponseParser()
  private var progress = HTTPRequestProgress.notSent
  private var reused = false
  private var served = 0
  private var idleSince: Int64

  /// Takes over `connection` (from ``ClientConnect``: reading paused, no handler); reading
  /// resumes at once.
  init(
    connection: TCPConnection, key: HTTPConnectionPool.Key, pool: HTTPConnectionPool,
    limits: HTTPResponseParser.Limits, idleTimeout: Int64
  ) {
    self.connection = connection
    self.key = key
    self.pool = pool
    self.limits = limits
    self.idleTimeout = idleTimeout
    idleSince = connection.loop.now
    connection.handler = self
    connection.maxBufferedBytes = Int.max
    connection.resumeReading()
  }

  var isBusy: Bool { exchange != nil }

  /// Whether an idle connection can take a request: still open, and nothing waiting to be
  /// read (no FIN, no stray byte) that the loop has not yet seen. A peek, not a read. (Over
  /// TLS, ask the TLS layer instead: it may hold records, such as a session ticket, that are
  /// no response.)
  func isReusable() -> Bool {
    guard !connection.isClosed else { return false }
    var byte: UInt8 = 0
    let count = recv(connection.fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
    return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
  }

  /// Writes `exchange`'s request and waits for its response.
  func start(_ exchange: HTTPExchange) {
    self.exchange = exchange
    exchange.connection = self
    reused = served > 0
    parser = HTTPResponseParser(requestMethod: exchange.request.method, limits: limits)
    progress = .notSent
    connection.write(exchange.request.bytes)
    // A write that failed at once closed the connection, and `closed` ended the exchange.
    guard !connection.isClosed, self.exchange === exchange else { return }
    progress = connection.bufferedBytes == 0 ? .sent : .partlySent
  }

  /// The caller gave up.
  func cancel() {
    guard exchange != nil else { return }
    fail(.cancelled)
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {
    if exchange != nil && progress == .partlySent { progress = .sent }
  }

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
    guard exchange != nil else {
      // Nothing is asked: a byte now is a server bug, and the connection is unusable.
      connection.close()
      return
    }
    progress = .responseStarted
    parser.append(bytes)
    if let event = parser.next() { handle(event, peerClosed: false) }
  }

  func peerClosed(on connection: TCPConnection) {
    if exchange != nil, let event = parser.finish() { handle(event, peerClosed: true) }
    connection.close()
  }

  func tick(now: Int64, on connection: TCPConnection) {
    if let exchange {
      if now >= exchange.deadline {
        fail(.timedOut)
        connection.close()
      }
    } else if now - idleSince >= idleTimeout {
      connection.close()
    }
  }

  /// The handshake failed: the request never left in the clear, so it never reached the server.
  func tlsFailed(_ error: TLSError, on connection: TCPConnection) {
    progress = .notSent
    fail(.tls(error))
    connection.close()
  }

  func closed(on connection: TCPConnection) {
    // A reset, a socket error, or this side closing: an exchange still running is cut short.
    if exchange != nil { fail(.connectionClosed) }
    pool?.closed(self)
  }

  private func handle(_ event: HTTPResponseParser.Event, peerClosed: Bool) {
    guard let exchange else { return }
    switch event {
    case .response(let head, let body):
      // Reused only if both ends want it, the request went out whole, and nothing came after.
      let reusable =
        head.keepAlive && !exchange.request.closesConnection && !peerClosed
        && parser.bytesAfterResponse == 0 && connection.bufferedBytes == 0
      self.exchange = nil
      served += 1
      exchange.resume(
        .done(.success(HTTPClientResponse(status: head.status, headers: head.headers, body: body))))
      if reusable {
        idleSince = connection.loop.now
        pool?.release(self)
      } else if !peerClosed {
        connection.close()
      }
    case .failure(let error):
      fail(error.kind == .truncated ? .connectionClosed : .invalidResponse(error))
      if !peerClosed { connection.close() }
    }
  }

  private func fail(_ reason: HTTPClientError.Reason) {
    guard let exchange else { return }
    self.exchange = nil
    exchange.resume(
      .done(
        .failure(
          HTTPExchange.Failure(
            error: HTTPClientError(reason, progress: progress), onReusedConnection: reused))))
  }
}
