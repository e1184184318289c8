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
}

/// A non-blocking TCP socket on one loop, with a bounded write buffer.
///
/// Writes go straight to the kernel when they can; the rest waits in `outbound` for
/// writability. A peer that does not read makes `outbound` grow: past `maxBufferedBytes`, or
/// after `writeTimeout` milliseconds without progress, the connection is dropped, so memory
/// never grows without limit and one slow reader costs nobody else anything.
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
  private var outbound: [UInt8] = []
  private var outboundStart = 0
  private var lastWriteProgress: Int64
  private var closeWhenFlushed = false
  private var lingerWhenClosing = false
  private var lingerDeadline: Int64?

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

  var bufferedBytes: Int { outbound.count - outboundStart }

  /// Whether the connection is closing: no more writes are taken.
  var isClosing: Bool { isClosed || closeWhenFlushed }

  func handleEvents(_ events: UInt32) {
    if events & (EventLoop.readable | EventLoop.readHangUp | EventLoop.hangUp | EventLoop.error)
      != 0
    {
      readAvailable()
    }
    if !isClosed && events & (EventLoop.writable | EventLoop.error | EventLoop.hangUp) != 0 {
      flush()
    }
  }

  func tick(now: Int64) {
    if let lingerDeadline, now >= lingerDeadline {
      close()
      return
    }
    if bufferedBytes > 0 && now - lastWriteProgress > writeTimeout {
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

  /// Queues `bytes` for the peer. Past the buffer bound the connection is dropped.
  func write(_ bytes: [UInt8]) {
    guard !isClosing, !bytes.isEmpty else { return }
    if bufferedBytes == 0 {
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
      outbound.append(contentsOf: bytes[max(0, sent)...])
    } else {
      outbound.append(contentsOf: bytes)
    }
    if bufferedBytes > maxBufferedBytes { close() }
  }

  /// Closes once the buffered bytes are written. With `linger`, the write side is shut first
  /// and reads are discarded until the peer closes (at most two seconds), so the peer reads
  /// the last response instead of a reset caused by bytes it sent that were never read.
  func closeAfterFlush(linger: Bool) {
    guard !isClosing else { return }
    closeWhenFlushed = true
    lingerWhenClosing = linger
    if bufferedBytes == 0 { finishClosing() }
  }

  /// Closes the socket now; the handler hears `closed` once.
  func close() {
    guard !isClosed else { return }
    isClosed = true
    loop.deregister(id: id, fd: fd)
    Glibc.close(fd)
    outbound = []
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

  private func readAvailable() {
    var budget = 16
    while !isClosed && !isReadPaused {
      if budget == 0 {
        // Be fair to the other sockets; edge-triggered epoll will not report this one again.
        loop.execute { [self] in readAvailable() }
        return
      }
      budget -= 1
      let count = recv(fd, loop.readBuffer.baseAddress, loop.readBuffer.count, 0)
      if count > 0 {
        if lingerDeadline != nil || closeWhenFlushed { continue }
        handler?.received(
          UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]), on: self)
      } else if count == 0 {
        if lingerDeadline != nil || closeWhenFlushed {
          if lingerDeadline != nil { close() }
          return
        }
        if let handler { handler.peerClosed(on: self) } else { close() }
        return
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
  }

  private func flush() {
    while bufferedBytes > 0 {
      let sent = outbound.withUnsafeBytes {
        send(fd, $0.baseAddress! + outboundStart, bufferedBytes, Int32(MSG_NOSIGNAL))
      }
      if sent > 0 {
        outboundStart += sent
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
    if outboundStart > 0 {
      outbound.removeAll(keepingCapacity: outbound.capacity <= 256 * 1024)
      outboundStart = 0
    }
    if closeWhenFlushed {
      if lingerDeadline == nil { finishClosing() }
    } else {
      handler?.writeDrained(on: self)
    }
  }
}
