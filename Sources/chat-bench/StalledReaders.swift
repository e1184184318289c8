import Foundation
import Glibc

/// Live sockets whose devices stopped reading (a phone in a lift), for B7's second row: each a
/// blocking socket with a 4 KiB receive buffer (set before connecting, so the window stays
/// small), upgraded to `/v1/live` with its member's token, then never read again. Closed by
/// `close()`.
final class StalledReaders {
  private var descriptors: [Int32] = []

  /// Opens one stalled socket per token to 127.0.0.1:`port`.
  init(port: Int, tokens: [String]) throws {
    do {
      for token in tokens { descriptors.append(try Self.open(port: port, token: token)) }
    } catch {
      close()
      throw error
    }
  }

  func close() {
    for descriptor in descriptors { Glibc.close(descriptor) }
    descriptors = []
  }

  private static func open(port: Int, token: String) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw BenchError("stalled reader: socket: \(errno)") }
    var size: Int32 = 4_096
    setsockopt(
      descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      Glibc.close(descriptor)
      throw BenchError("stalled reader: connect: \(errno)")
    }
    let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    let request = Array(
      ("GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        + "Authorization: Bearer \(token)\r\n\r\n").utf8)
    guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
      Glibc.close(descriptor)
      throw BenchError("stalled reader: the upgrade request was not sent")
    }
    // The response's head, a byte at a time: nothing past it is read.
    var head: [UInt8] = []
    var byte: UInt8 = 0
    while !head.ends(with: Array("\r\n\r\n".utf8)) {
      guard recv(descriptor, &byte, 1, 0) == 1 else { break }
      head.append(byte)
    }
    guard head.starts(with: Array("HTTP/1.1 101".utf8)) else {
      Glibc.close(descriptor)
      throw BenchError(
        "stalled reader: the upgrade was answered \(String(decoding: head, as: UTF8.self))")
    }
    return descriptor
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
