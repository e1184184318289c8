import CEpoll
import Glibc

/// A failed system call or an unexpected answer while generating load.
public struct LoadError: Error, Sendable, CustomStringConvertible {
  public let description: String

  init(_ description: String) {
    self.description = description
  }

  static func system(_ call: String) -> LoadError {
    LoadError("\(call) failed: \(String(cString: strerror(errno)))")
  }
}

/// One parsed HTTP/1.1 response: enough to count it (the status) and read a setup answer.
struct RawResponse {
  var status: Int
  var body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }
}

/// Cuts complete responses off the front of the bytes received on one keep-alive connection.
/// Understands `Content-Length` framing only, which is what the chat server sends.
struct ResponseReader {
  private(set) var buffer: [UInt8] = []
  private var start = 0

  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete response, or nil when more bytes are needed. Throws on a response it
  /// cannot frame.
  mutating func next() throws(LoadError) -> RawResponse? {
    let available = buffer.count - start
    guard available >= 12 else { return nil }
    guard let headerEnd = findHeaderEnd() else { return nil }
    // "HTTP/1.1 201 Created"
    let statusStart = start + 9
    guard buffer[start] == UInt8(ascii: "H") else { throw LoadError("not an HTTP response") }
    var status = 0
    for index in statusStart..<(statusStart + 3) {
      let digit = Int(buffer[index]) - 48
      guard (0...9).contains(digit) else { throw LoadError("malformed status line") }
      status = status * 10 + digit
    }
    let length = contentLength(in: start..<headerEnd) ?? 0
    let bodyStart = headerEnd + 4
    guard buffer.count >= bodyStart + length else { return nil }
    let body = Array(buffer[bodyStart..<(bodyStart + length)])
    start = bodyStart + length
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 65_536 {
      buffer.removeFirst(start)
      start = 0
    }
    return RawResponse(status: status, body: body)
  }

  /// The index of the `\r\n\r\n` ending the header section.
  private func findHeaderEnd() -> Int? {
    var index = start
    let end = buffer.count - 3
    while index < end {
      if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13
        && buffer[index + 3] == 10
      {
        return index
      }
      index += 1
    }
    return nil
  }

  private static let contentLengthName = Array("\r\ncontent-length:".utf8)

  private func contentLength(in range: Range<Int>) -> Int? {
    let name = Self.contentLengthName
    var index = range.lowerBound
    while index + name.count <= range.upperBound {
      var matches = true
      for offset in 0..<name.count {
        var byte = buffer[index + offset]
        if byte >= 65 && byte <= 90 { byte += 32 }
        if byte != name[offset] {
          matches = false
          break
        }
      }
      if matches {
        var cursor = index + name.count
        while cursor < range.upperBound && buffer[cursor] == 32 { cursor += 1 }
        var value = 0
        while cursor < range.upperBound, (48...57).contains(buffer[cursor]) {
          value = value * 10 + Int(buffer[cursor]) - 48
          cursor += 1
        }
        return value
      }
      index += 1
    }
    return nil
  }
}

/// Socket helpers: IPv4 or IPv6 numeric addresses (and `localhost`), blocking connect.
package enum LoadSocket {
  /// A connected TCP socket with `TCP_NODELAY`, blocking.
  package static func connect(host: String, port: Int) throws(LoadError) -> Int32 {
    let numeric = host == "localhost" ? "127.0.0.1" : host
    let fd: Int32
    if numeric.contains(":") {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = in_port_t(UInt16(port).bigEndian)
      guard inet_pton(AF_INET6, numeric, &address.sin6_addr) == 1 else {
        throw LoadError("--host must be a numeric address or localhost, got \(host)")
      }
      fd = try connect(AF_INET6, address, naming: "[\(host)]:\(port)")
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      guard inet_pton(AF_INET, numeric, &address.sin_addr) == 1 else {
        throw LoadError("--host must be a numeric address or localhost, got \(host)")
      }
      fd = try connect(AF_INET, address, naming: "\(host):\(port)")
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
  }

  /// A new socket of `family` connected to `address` (a `sockaddr_in` or `sockaddr_in6`),
  /// blocking; `naming` is the address as the error shows it.
  private static func connect<Address>(_ family: Int32, _ address: Address, naming: String)
    throws(LoadError) -> Int32
  {
    var address = address
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .system("socket") }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
    guard result == 0 else {
      let error = LoadError.system("connect to \(naming)")
      close(fd)
      throw error
    }
    return fd
  }

  package static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  /// Writes all of `bytes` to a blocking socket.
  package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(LoadError) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { throw .system("send") }
      offset += written
    }
  }
}

/// A blocking keep-alive HTTP/1.1 client for the set-up requests (sign-ins, conversations,
/// metrics): simple, not fast.
final class BlockingHTTPClient {
  private let fd: Int32
  private let host: String
  private var reader = ResponseReader()

  init(host: String, port: Int) throws(LoadError) {
    fd = try LoadSocket.connect(host: host, port: port)
    self.host = host
  }

  deinit {
    close(fd)
  }

  func request(
    _ method: String, _ path: String, token: String? = nil, body: String? = nil
  ) throws(LoadError) -> RawResponse {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
    if let token { head += "Authorization: Bearer \(token)\r\n" }
    let bodyBytes = Array((body ?? "").utf8)
    if body != nil {
      head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n"
    }
    head += "\r\n"
    try LoadSocket.writeAll(fd, Array(head.utf8) + bodyBytes)
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      if let response = try reader.next() { return response }
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw LoadError("the server closed the connection") }
      chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
  }
}

/// Monotonic nanoseconds.
func monotonicNanoseconds() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// CPU seconds (user + system) this process has used.
func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  func seconds(_ value: timeval) -> Double {
    Double(value.tv_sec) + Double(value.tv_usec) / 1e6
  }
  return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// CPU seconds (user + system) process `pid` has used, from `/proc/PID/stat`; nil when unknown.
func processCPUSeconds(pid: Int32) -> Double? {
  guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 4096)
  guard fgets(&line, Int32(line.count), file) != nil else { return nil }
  let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  // The command name, in parentheses, may hold spaces: split after its closing one.
  guard let close = text.lastIndex(of: ")") else { return nil }
  let fields = text[text.index(after: close)...].split(separator: " ")
  // After the name: state is field 3 of the whole line, utime 14 and stime 15.
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return nil
  }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The 1-minute load average from `/proc/loadavg`; nil when unknown.
func loadAverage() -> Double? {
  guard let file = fopen("/proc/loadavg", "r") else { return nil }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 128)
  guard fgets(&line, Int32(line.count), file) != nil else { return nil }
  let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return text.split(separator: " ").first.flatMap { Double($0) }
}
