import ChatLoad
import Foundation
import Glibc
import Wire

/// Raw WebSocket clients for the load of B7 (fan-out) and B8 (echo): the opening handshake on
/// blocking sockets, then one thread with epoll reading frames. The same code drives our server
/// and the peer, so neither gets a different client.
enum WebSocketLoad {
  /// Opens `count` WebSockets to `path`, `batch` handshakes in flight at a time. Returns the
  /// sockets (non-blocking) and any bytes that came after each handshake.
  static func open(
    count: Int, port: Int, path: String, batch: Int = 250,
    headers: (Int) -> [String: String] = { _ in [:] }
  ) throws -> [(fd: Int32, leftover: [UInt8])] {
    var sockets: [(fd: Int32, leftover: [UInt8])] = []
    sockets.reserveCapacity(count)
    var next = 0
    while next < count {
      let group = next..<Swift.min(count, next + batch)
      var fds: [Int32] = []
      for index in group {
        let fd = try LoadSocket.connect(host: "127.0.0.1", port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        request += "Connection: Upgrade\r\nSec-WebSocket-Key: Y2hhdC1iZW5jaC1rZXkhIQ==\r\n"
        request += "Sec-WebSocket-Version: 13\r\n"
        for (name, value) in headers(index) { request += "\(name): \(value)\r\n" }
        try LoadSocket.writeAll(fd, Array((request + "\r\n").utf8))
        fds.append(fd)
      }
      for fd in fds {
        let (head, rest) = try RawSocket.readHead(fd)
        guard head.hasPrefix("HTTP/1.1 101") else {
          throw BenchError("WebSocket handshake refused: \(head.prefix(40))")
        }
        LoadSocket.setNonBlocking(fd)
        sockets.append((fd, rest))
      }
      next = group.upperBound
    }
    return sockets
  }

  /// A client text frame (masked, as RFC 6455 requires of clients).
  static func textFrame(_ payload: [UInt8]) -> [UInt8] { frame(opcode: .text, payload) }

  /// A masked client frame, written by Wire's encoder with a fixed key (the load needs no
  /// fresh key per frame).
  static func frame(opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
    WebSocketFrame.encode(opcode: opcode, payload: payload, maskingKey: 0x37FA_213D)
  }

  /// A server frame (unmasked) at `bytes[start...]`: its opcode, where its payload lies and
  /// its whole length; nil until it has all arrived.
  static func parse(_ bytes: [UInt8], from start: Int) -> (
    opcode: UInt8, payload: Range<Int>, length: Int
  )? {
    guard bytes.count - start >= 2 else { return nil }
    let opcode = bytes[start] & 0x0F
    var length = Int(bytes[start + 1] & 0x7F)
    var header = 2
    if length == 126 {
      guard bytes.count - start >= 4 else { return nil }
      length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
      header = 4
    } else if length == 127 {
      guard bytes.count - start >= 10 else { return nil }
      length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[start + 2 + $1]) }
      header = 10
    }
    guard bytes.count - start >= header + length else { return nil }
    return (opcode, (start + header)..<(start + header + length), header + length)
  }

  /// Whether `needle` occurs in `bytes[range]`.
  static func contains(_ bytes: [UInt8], _ range: Range<Int>, _ needle: [UInt8]) -> Bool {
    guard range.count >= needle.count else { return false }
    var index = range.lowerBound
    while index + needle.count <= range.upperBound {
      if bytes[index] == needle[0] {
        var matches = true
        for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
          matches = false
          break
        }
        if matches { return true }
      }
      index += 1
    }
    return false
  }

  /// Answers a ping whose payload is `payload` with a pong on `fd`.
  static func answerPing(_ fd: Int32, payload: ArraySlice<UInt8>) {
    let pong = frame(opcode: .pong, Array(payload))
    _ = pong.withUnsafeBytes { RawSocket.send(fd, $0) }
  }

  /// What an echo run did.
  struct EchoResult: Sendable {
    var echoes = 0
    var windowNanoseconds: Int64 = 0
    var cpuNanoseconds: Int64 = 0
    var wallNanoseconds: Int64 = 0
    var latencies = Samples()
    /// Of several windows, when more were run.
    var slowest = 0.0
    var fastest = 0.0
    var throughput: Double { Double(echoes) / Nanos.seconds(windowNanoseconds) }
    var cpuShare: Double { Double(cpuNanoseconds) / Double(max(1, wallNanoseconds)) }
  }

  /// B8's load: every socket sends a text message, waits for its echo, sends the next, for
  /// `warmUp` then `duration`; on a thread of its own. Echoes are counted inside the window.
  static func echo(
    sockets: [(fd: Int32, leftover: [UInt8])], payload: [UInt8], warmUp: Int64, duration: Int64
  ) async throws -> EchoResult {
    try await onThread("bench.echo-load") {
      try driveEcho(sockets: sockets, payload: payload, warmUp: warmUp, duration: duration)
    }
  }

  private static func driveEcho(
    sockets: [(fd: Int32, leftover: [UInt8])], payload: [UInt8], warmUp: Int64, duration: Int64
  ) throws -> EchoResult {
    let poller = Poller()
    let message = textFrame(payload)
    var buffers = sockets.map(\.leftover)
    var sentAt = [Int64](repeating: 0, count: sockets.count)
    var done = [Bool](repeating: false, count: sockets.count)
    for (index, socket) in sockets.enumerated() { poller.add(socket.fd, token: index) }
    let cpuStarted = CPUTime.thread()
    let started = Nanos.now()
    let windowStart = started + warmUp
    let windowEnd = windowStart + duration
    var result = EchoResult()
    func send(_ index: Int) -> Bool {
      sentAt[index] = Nanos.now()
      return message.withUnsafeBytes { RawSocket.send(sockets[index].fd, $0) }
    }
    for index in sockets.indices where !send(index) {
      throw BenchError("echo: a send failed")
    }
    var active = sockets.count
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while active > 0 {
      if Nanos.now() > windowEnd + 10_000_000_000 {
        throw BenchError("echo: \(active) echoes missing 10 s after the end")
      }
      var failure: BenchError?
      poller.wait(timeout: 100) { index in
        guard !done[index] else { return }
        guard RawSocket.drain(sockets[index].fd, into: &buffers[index], chunk: &chunk) else {
          failure = BenchError("echo: the server closed a connection")
          return
        }
        var consumed = 0
        while let (opcode, range, length) = parse(buffers[index], from: consumed) {
          consumed += length
          if opcode == 0x9 {
            answerPing(sockets[index].fd, payload: buffers[index][range])
            continue
          }
          guard opcode == 0x1 else { continue }
          let now = Nanos.now()
          if now >= windowStart && now < windowEnd {
            result.echoes += 1
            if result.echoes % 16 == 0 { result.latencies.add(now - sentAt[index]) }
          }
          if now < windowEnd {
            if !send(index) { failure = BenchError("echo: a send failed") }
          } else {
            done[index] = true
            active -= 1
          }
        }
        if consumed > 0 { buffers[index].removeFirst(consumed) }
      }
      if let failure { throw failure }
    }
    result.windowNanoseconds = duration
    result.wallNanoseconds = Nanos.now() - started
    result.cpuNanoseconds = CPUTime.thread() - cpuStarted
    return result
  }
}
