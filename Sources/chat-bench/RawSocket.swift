import CEpoll
import Foundation
import Glibc

/// Plain TCP sockets to a server on this machine, for the load generators: connected (blocking,
/// `TCP_NODELAY`) by ChatLoad's `LoadSocket`, non-blocking once an epoll loop drives them.
enum RawSocket {
  /// Writes to a non-blocking socket; the little the load generators send always fits the
  /// socket buffer, so a short write is an error rather than something to queue.
  static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN {
          var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          _ = poll(&poller, 1, 1000)
          continue
        }
        return false
      }
      offset += written
    }
    return true
  }

  /// Reads what a non-blocking socket has into `buffer`, `chunk` at a time; false when the
  /// peer closed it.
  static func drain(_ fd: Int32, into buffer: inout [UInt8], chunk: inout [UInt8]) -> Bool {
    while true {
      let count = read(fd, &chunk, chunk.count)
      if count > 0 {
        buffer.append(contentsOf: chunk[..<count])
        if count < chunk.count { return true }
      } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
        return true
      } else {
        return false
      }
    }
  }

  /// Reads a blocking socket until the end of an HTTP head; returns the head and what followed.
  static func readHead(_ fd: Int32) throws -> (head: String, rest: [UInt8]) {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { throw BenchError("connection closed during the handshake") }
      received.append(contentsOf: buffer[..<count])
      if let end = HTTPResponseScanner.headEnd(received, from: 0) {
        return (String(decoding: received[..<end], as: UTF8.self), Array(received[(end + 4)...]))
      }
    }
  }
}

/// Runs `body` on a new thread named `name` (a load generator's, so it measures its own CPU
/// time and does not share a core with the tasks) and returns what it returns.
func onThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T)
  async throws -> T
{
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      do {
        continuation.resume(returning: try body())
      } catch {
        continuation.resume(throwing: error)
      }
    }
    thread.name = name
    thread.start()
  }
}

/// An epoll instance for one load generator thread.
final class Poller {
  let fd: Int32
  private var events = [epoll_event](repeating: epoll_event(), count: 1024)

  init() {
    fd = epoll_create1(Int32(EPOLL_CLOEXEC))
  }

  deinit { close(fd) }

  func add(_ socket: Int32, token: Int) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = UInt64(token)
    epoll_ctl(fd, EPOLL_CTL_ADD, socket, &event)
  }

  /// Waits up to `timeout` ms; calls `body` with the token of every readable socket.
  func wait(timeout: Int32, _ body: (Int) -> Void) {
    let count = events.withUnsafeMutableBufferPointer {
      epoll_wait(fd, $0.baseAddress, Int32($0.count), timeout)
    }
    guard count > 0 else { return }
    for index in 0..<Int(count) { body(Int(events[index].data.u64)) }
  }
}

/// Finds the parts of an HTTP/1.1 response in received bytes without copying them.
enum HTTPResponseScanner {
  /// The index of the `\r\n\r\n` that ends the head, searching from `start`.
  static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= start + 4 else { return nil }
    var index = start
    while index + 3 < bytes.count {
      if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
        && bytes[index + 3] == 10
      {
        return index
      }
      index += 1
    }
    return nil
  }

  /// The total length (head and body) and the status of the first complete response in
  /// `bytes[start...]`, or nil when it is not all there yet.
  static func response(_ bytes: [UInt8], from start: Int) -> (length: Int, status: Int)? {
    guard let end = headEnd(bytes, from: start) else { return nil }
    let head = bytes[start..<end]
    // "HTTP/1.1 201 Created"
    guard head.count > 12 else { return nil }
    let status =
      Int(head[start + 9] - 48) * 100 + Int(head[start + 10] - 48) * 10
      + Int(head[start + 11] - 48)
    var contentLength = 0
    // Find "content-length:" whatever its case.
    let name = Array("content-length:".utf8)
    var index = start
    while index + name.count < end {
      if bytes[index] == 10 {
        var matches = true
        for offset in 0..<name.count where bytes[index + 1 + offset] | 0x20 != name[offset] {
          matches = false
          break
        }
        if matches {
          var cursor = index + 1 + name.count
          while cursor < end, bytes[cursor] == 32 { cursor += 1 }
          while cursor < end, bytes[cursor] >= 48, bytes[cursor] <= 57 {
            contentLength = contentLength * 10 + Int(bytes[cursor] - 48)
            cursor += 1
          }
          break
        }
      }
      index += 1
    }
    let total = end + 4 + contentLength - start
    return bytes.count - start >= total ? (total, status) : nil
  }
}
