import CEpoll
import Glibc

/// What drives a ``TCPConnection``: the HTTP server, a WebSocket, or a client handshake. A
/// connection swaps its handler when the protocol changes. Called only on the loop's thread.
protocol ConnectionHandler: AnyObject {
  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection)
  /// The peer will send nothing more (EOF).
  func peerClosed(on connection: TCPConnection)
  /// Everything written so far has reached the kernel.
  func writeDrained(on connection: TCPConnection)
  func tick(now: Int64, on connection: TCPConnection)
  /// The socket is closed; called once.
  func closed(on connection: TCPConnection)
  /// The TLS handshake is done: plaintext flows both ways from now on.
  func tlsEstablished(on connection: TCPConnection)
  /// The TLS handshake failed; the connection closes after this returns (once an alert
  /// OpenSSL queued, or what the handler wrote with `writeUnencrypted`, has gone out).
  func tlsFailed(_ error: TLSError, on connection: TCPConnection)
}

extension ConnectionHandler {
  func tlsEstablished(on connection: TCPConnection) {}
  func tlsFailed(_ error: TLSError, on connection: TCPConnection) {}
}

/// A non-blocking TCP socket on one loop, with a bounded write buffer, and optionally TLS.
///
/// Writes go straight to the kernel when they can; the rest waits in `outbound` for
/// writability. A peer that does not read makes `outbound` grow: past `maxBufferedBytes`, or
/// after `writeTimeout` milliseconds without progress, the connection is dropped, so memory
/// never grows without limit and one slow reader costs nobody else anything.
///
/// With TLS (``startTLS(server:handshakeTimeout:)``, ``startTLS(client:serverName:handshakeTimeout:)``)
/// the socket carries ciphertext and the handler still sees only plaintext: what is read goes
/// through the ``TLSSession`` before `received`, what the handler writes goes through it before
/// `outbound`. The handler hears of the handshake through `tlsEstablished` or `tlsFailed`, and
/// `writeDrained` only once the handshake is done; plaintext written earlier waits, counted in
/// `bufferedBytes`. Closing sends close_notify first.
final class TCPConnection: Selectable, @unchecked Sendable {
  // @unchecked: every property is touched only on `loop`'s thread; other threads reach a
  // connection only through `loop.execute`.
  let fd: Int32
  let loop: EventLoop
  let remoteAddress: String
  var handler: (any ConnectionHandler)?
  var maxBufferedBytes: Int
  var writeTimeout: Int64
  private(set) var id: UInt64 = 0
  private(set) var isClosed = false
  private(set) var isReadPaused = false
  /// The errno that closed the socket, 0 when none did.
  private(set) var lastError: Int32 = 0
  /// The connection was dropped because its peer stopped reading: more than
  /// `maxBufferedBytes` waited, or a write made no progress for `writeTimeout`.
  private(set) var peerStoppedReading = false
  private var outbound = ByteBuffer()
  private var lastWriteProgress: Int64
  private var closeWhenFlushed = false
  private var lingerWhenClosing = false
  private var lingerDeadline: Int64?
  private var tls: TLSSession?
  private var tlsDeadline: Int64?
  /// Plaintext written before the handshake finished.
  private var pendingPlaintext = ByteBuffer()

  init(
    fd: Int32, loop: EventLoop, remoteAddress: String, maxBufferedBytes: Int, writeTimeout: Int64
  ) {
    self.fd = fd
    self.loop = loop
    self.remoteAddress = remoteAddress
    self.maxBufferedBytes = maxBufferedBytes
    self.writeTimeout = writeTimeout
    lastWriteProgress = loop.now
  }

  /// Adds the socket to the loop (edge-triggered: reads and writes go on until EAGAIN).
  func register() throws {
    id = try loop.register(
      self, fd: fd,
      events: EventLoop.readable | EventLoop.writable | EventLoop.readHangUp
        | EventLoop.edgeTriggered)
  }

  var bufferedBytes: Int { outbound.readableBytes + pendingPlaintext.readableBytes }

  /// Makes the connection the server side of TLS: the handshake runs as the client's bytes
  /// arrive, and must finish within `handshakeTimeout` (`tlsFailed(.handshakeTimedOut)` after).
  /// Call before `register()`, on the loop's thread.
  func startTLS(server context: TLSContext, handshakeTimeout: Duration) throws(TLSError) {
    tls = try TLSSession(context: context, serverName: nil)
    tlsDeadline = loop.now + handshakeTimeout.milliseconds
  }

  /// Makes the connection the client side of TLS and queues the ClientHello, which goes out on
  /// the first writability (when the TCP connect completes), or at once on a connection already
  /// registered and connected (``ClientConnect``'s). The server's certificate must chain to
  /// `context`'s trust roots and be valid for `serverName` (a DNS name, also sent as SNI, or an
  /// IP address). Without `handshakeTimeout`, the caller's own deadline bounds the handshake.
  /// Call on the loop's thread, before the handler writes.
  func startTLS(client context: TLSContext, serverName: String, handshakeTimeout: Duration? = nil)
    throws(TLSError)
  {
    let session = try TLSSession(context: context, serverName: serverName)
    if case .failed(let error) = session.handshake() { throw error }
    tls = session
    tlsDeadline = handshakeTimeout.map { loop.now + $0.milliseconds }
    // Queued; sent now only if the socket is registered (a socket not yet registered may still
    // be connecting, and its first writability sends it).
    outbound.writeBytes(session.takeOutput())
    if id != 0 { flush() }
  }

  /// Whether the connection is closing: no more writes are taken.
  var isClosing: Bool { isClosed || closeWhenFlushed }

  func handleEvents(_ events: UInt32) {
    let ended = events & (EventLoop.readHangUp | EventLoop.hangUp | EventLoop.error) != 0
    if ended || events & EventLoop.readable != 0 {
      readAvailable(stopAtShortRead: !ended)
    }
    if !isClosed && events & (EventLoop.writable | EventLoop.error | EventLoop.hangUp) != 0 {
      flush()
    }
  }

  func tick(now: Int64) {
    if let tlsDeadline, now >= tlsDeadline {
      failTLS(.handshakeTimedOut, linger: false)
      return
    }
    if let lingerDeadline, now >= lingerDeadline {
      close()
      return
    }
    if !outbound.isEmpty && now - lastWriteProgress > writeTimeout {
      peerStoppedReading = true
      close()
      return
    }
    handler?.tick(now: now, on: self)
  }

  /// Stops reading; bytes wait in the kernel (and TCP flow control slows the peer).
  func pauseReading() {
    isReadPaused = true
  }

  /// Reads again, including what arrived while paused.
  func resumeReading() {
    guard isReadPaused else { return }
    isReadPaused = false
    loop.execute { [self] in readAvailable() }
  }

  /// Queues `bytes` for the peer (encrypted, with TLS). Past the buffer bound the connection
  /// is dropped.
  func write(_ bytes: [UInt8]) {
    guard !isClosing, !bytes.isEmpty else { return }
    guard let tls else {
      writeToSocket(bytes)
      return
    }
    switch tls.state {
    case .handshaking:
      pendingPlaintext.writeBytes(bytes)
      dropIfOverfull()
    case .established, .peerClosed:
      guard tls.write(bytes) else {
        close()
        return
      }
      sendTLSOutput()
    case .shutDown, .failed:
      return
    }
  }

  /// Writes `bytes` as they are, outside TLS: only after the handshake failed because the
  /// peer speaks plaintext, to answer it in its own language (an HTTP 400).
  func writeUnencrypted(_ bytes: [UInt8]) {
    guard let tls, tls.state == .failed else { return }
    writeToSocket(bytes)
  }

  private func writeToSocket(_ bytes: [UInt8]) {
    guard !isClosed, !bytes.isEmpty else { return }
    if outbound.isEmpty {
      let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if sent == bytes.count {
        lastWriteProgress = loop.now
        return
      }
      if sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
        lastError = errno
        close()
        return
      }
      if sent > 0 { lastWriteProgress = loop.now }
      outbound.writeBytes(bytes[max(0, sent)...])
    } else {
      outbound.writeBytes(bytes)
    }
    dropIfOverfull()
  }

  private func dropIfOverfull() {
    guard bufferedBytes > maxBufferedBytes else { return }
    peerStoppedReading = true
    close()
  }

  /// Closes once the buffered bytes are written. With `linger`, the write side is shut first
  /// and reads are discarded until the peer closes (at most two seconds), so the peer reads
  /// the last response instead of a reset caused by bytes it sent that were never read.
  func closeAfterFlush(linger: Bool) {
    guard !isClosing else { return }
    if let tls {
      pendingPlaintext.clear()
      tls.shutdown()
      sendTLSOutput()
    }
    closeWhenFlushed = true
    lingerWhenClosing = linger
    if outbound.isEmpty { finishClosing() }
  }

  /// Closes the socket now; the handler hears `closed` once. With TLS, close_notify goes out
  /// first when nothing else is waiting (one try: the socket is closed either way).
  func close() {
    guard !isClosed else { return }
    if let tls, outbound.isEmpty {
      tls.shutdown()
      let notify = tls.takeOutput()
      _ = notify.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    isClosed = true
    tlsDeadline = nil
    loop.deregister(id: id, fd: fd)
    Glibc.close(fd)
    outbound.clear()
    let handler = self.handler
    self.handler = nil
    handler?.closed(on: self)
  }

  private func finishClosing() {
    guard lingerWhenClosing else {
      close()
      return
    }
    shutdown(fd, Int32(SHUT_WR))
    lingerDeadline = loop.now + 2000
    isReadPaused = false
    readAvailable()
  }

  /// Reads until the kernel has nothing more (`EAGAIN`), the end of the stream, a pause or a
  /// close. With `stopAtShortRead`, for a readiness event that reported no end of stream, a
  /// plaintext connection also stops after a read that did not fill the buffer: the kernel's
  /// queue was empty then, and any byte after it is a new edge epoll reports. That saves the
  /// `recv` that would only say `EAGAIN`: one system call in two for a request and its answer.
  /// (A resumed or continued read, which follows no event, reads to the end: the edge of an end
  /// of stream that came while paused was spent.)
  private func readAvailable(stopAtShortRead: Bool = false) {
    var budget = 16
    while !isClosed && !isReadPaused {
      if tls != nil && !deliverDecrypted() { return }
      if isClosed || isReadPaused { return }
      if budget == 0 {
        // Be fair to the other sockets; edge-triggered epoll will not report this one again.
        loop.execute { [self] in readAvailable() }
        return
      }
      budget -= 1
      let count = recv(fd, loop.readBuffer.baseAddress, loop.readBuffer.count, 0)
      if count > 0 {
        if lingerDeadline != nil || closeWhenFlushed { continue }
        let bytes = UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count])
        if let tls {
          receiveCiphertext(bytes, tls)
        } else {
          handler?.received(bytes, on: self)
          if stopAtShortRead && count < loop.readBuffer.count { return }
        }
      } else if count == 0 {
        if lingerDeadline != nil || closeWhenFlushed {
          if lingerDeadline != nil { close() }
          return
        }
        if let tls, tls.state == .handshaking {
          failTLS(.closedDuringHandshake, linger: false)
          return
        }
        if let handler { handler.peerClosed(on: self) } else { close() }
        return
      } else {
        let code = errno
        if code == EINTR { continue }
        if code != EAGAIN && code != EWOULDBLOCK {
          lastError = code
          if code == ECONNRESET, let tls, tls.state == .handshaking {
            failTLS(.closedDuringHandshake, linger: false)
          } else {
            close()
          }
        }
        return
      }
    }
  }

  private func flush() {
    while !outbound.isEmpty {
      let sent = outbound.withUnsafeReadableBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if sent > 0 {
        outbound.moveReaderIndex(forwardBy: sent)
        lastWriteProgress = loop.now
      } else {
        let code = errno
        if code == EINTR { continue }
        if code != EAGAIN && code != EWOULDBLOCK {
          lastError = code
          close()
        }
        return
      }
    }
    outbound.discardReadBytes(keepingCapacity: 256 * 1024)
    if closeWhenFlushed {
      if lingerDeadline == nil { finishClosing() }
    } else if tls == nil || tls?.state != .handshaking {
      handler?.writeDrained(on: self)
    }
  }

  // MARK: TLS

  /// Gives the handler what the session can decrypt; false when reading stops here (paused,
  /// closed, or the peer's close_notify, which is the end of its stream).
  private func deliverDecrypted() -> Bool {
    guard let tls, lingerDeadline == nil, !closeWhenFlushed else { return true }
    switch tls.state {
    case .handshaking: return true
    case .established: break
    case .peerClosed, .shutDown, .failed: return false
    }
    while !isClosed && !isReadPaused && !closeWhenFlushed {
      switch tls.read(into: loop.readBuffer) {
      case .bytes(let count):
        handler?.received(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]), on: self)
      case .needMore:
        // Reading can produce output too (a TLS 1.3 key update's answer).
        sendTLSOutput()
        return true
      case .closeNotify:
        sendTLSOutput()
        if let handler { handler.peerClosed(on: self) } else { close() }
        return false
      case .failed:
        close()
        return false
      }
    }
    return !isClosed
  }

  private func receiveCiphertext(_ bytes: UnsafeRawBufferPointer, _ tls: TLSSession) {
    if let error = tls.feed(bytes) {
      failTLS(error, linger: true)
      return
    }
    if tls.state == .handshaking { advanceHandshake(tls) }
  }

  private func advanceHandshake(_ tls: TLSSession) {
    switch tls.handshake() {
    case .pending:
      sendTLSOutput()
    case .failed(let error):
      failTLS(error, linger: true)
    case .done:
      tlsDeadline = nil
      sendTLSOutput()
      handler?.tlsEstablished(on: self)
      if !pendingPlaintext.isEmpty && !isClosing {
        write(pendingPlaintext.readAll())
      }
      // Tells the handler the way is clear (`writeDrained`) once the kernel has everything.
      if !isClosed { flush() }
    }
  }

  /// Ends a failed handshake: the handler hears why, then the connection closes after
  /// whatever is queued (OpenSSL's alert, the handler's plaintext answer). With `linger`, the
  /// close waits for the peer to read it (see `closeAfterFlush`).
  private func failTLS(_ error: TLSError, linger: Bool) {
    tlsDeadline = nil
    pendingPlaintext.clear()
    tls?.markFailed()
    sendTLSOutput()
    handler?.tlsFailed(error, on: self)
    if linger {
      closeAfterFlush(linger: true)
    } else {
      close()
    }
  }

  private func sendTLSOutput() {
    guard let tls else { return }
    writeToSocket(tls.takeOutput())
  }
}
