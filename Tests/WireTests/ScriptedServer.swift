import Foundation
import Glibc
import Synchronization

/// A raw TCP server on 127.0.0.1 for the client tests, independent of Wire: each accepted
/// connection runs `script` on a thread of its own with blocking reads and writes, so a test
/// answers with any bytes and cuts anywhere, with a FIN or a reset. It counts the connections
/// it accepted, so keep-alive reuse is observed from the server's side.
final class ScriptedServer: Sendable {
  let port: Int
  private let listener: Int32
  private let accepted = Atomic<Int>(0)
  private let stopped = Atomic<Bool>(false)

  init(_ script: @escaping @Sendable (ScriptedConnection) -> Void) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, Glibc.listen(listener, 64) == 0 else {
      close(listener)
      throw TimedOut()
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in
      while !stopped.load(ordering: .relaxed) {
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 50) > 0 else { continue }
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { continue }
        let index = accepted.add(1, ordering: .relaxed).oldValue
        let connection = ScriptedConnection(fd: fd, index: index)
        Thread { script(connection) }.start()
      }
      close(listener)
    }
    thread.start()
  }

  /// Connections accepted so far.
  var connectionsAccepted: Int { accepted.load(ordering: .relaxed) }

  func stop() {
    stopped.store(true, ordering: .relaxed)
  }
}

/// One accepted connection of a ``ScriptedServer``: blocking, with a 60 s receive timeout so a
/// script never hangs a test. (Not shorter: CI runs every suite at once on two cores, where a
/// client starved for 5 s between two requests once found its kept-alive connection closed by
/// this timeout, and opened a second one.)
final class ScriptedConnection: Sendable {
  let fd: Int32
  /// 0 for the first connection the server accepted.
  let index: Int

  init(fd: Int32, index: Int) {
    self.fd = fd
    self.index = index
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Reads one request (its head and a `Content-Length` body); nil when the peer closed first.
  func readRequest() -> String? {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if let end = find(Array("\r\n\r\n".utf8), in: bytes) {
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let length =
          head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
          .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        if bytes.count >= end + 4 + length {
          return String(decoding: bytes[..<(end + 4 + length)], as: UTF8.self)
        }
      }
      let count = recv(fd, &buffer, buffer.count, 0)
      guard count > 0 else { return nil }
      bytes.append(contentsOf: buffer[..<count])
    }
  }

  /// Reads exactly `count` bytes (fewer when the peer closes).
  func read(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: count)
    while bytes.count < count {
      let read = recv(fd, &buffer, count - bytes.count, 0)
      guard read > 0 else { break }
      bytes.append(contentsOf: buffer[..<read])
    }
    return bytes
  }

  func write(_ text: String) {
    write(Array(text.utf8))
  }

  func write(_ bytes: some Collection<UInt8>) {
    let array = Array(bytes)
    var sent = 0
    while sent < array.count {
      let count = array[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return }
      sent += count
    }
  }

  /// Ends with a FIN: shuts the write side, reads until the peer closes, closes.
  func closeWithFIN() {
    shutdown(fd, Int32(SHUT_WR))
    var buffer = [UInt8](repeating: 0, count: 4096)
    while recv(fd, &buffer, buffer.count, 0) > 0 {}
    close(fd)
  }

  /// Ends with a reset (`SO_LINGER` 0).
  func closeWithReset() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    close(fd)
  }

  /// Waits until the peer closes (or 5 s pass), then closes.
  func waitForPeerToClose() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while recv(fd, &buffer, buffer.count, 0) > 0 {}
    close(fd)
  }
}

private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
  guard haystack.count >= needle.count else { return nil }
  for index in 0...(haystack.count - needle.count)
  where haystack[index..<(index + needle.count)].elementsEqual(needle) {
    return index
  }
  return nil
}
