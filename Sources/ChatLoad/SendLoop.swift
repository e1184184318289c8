import CEpoll
import ChatDomain
import Glibc
import Support

/// One generator thread: an epoll loop over its connections, each with one request in flight.
final class SendLoop {
  private final class Connection {
    let fd: Int32
    /// The request with its clientMessageId at `idOffset` (36 bytes), rewritten per send.
    var request: [UInt8]
    let idOffset: Int
    var reader = ResponseReader()
    var sentAt: Int64 = 0
    var written = 0
    var counter: UInt64 = 0
    let idPrefix: UInt64
    var finished = false

    init(fd: Int32, request: [UInt8], idOffset: Int, idPrefix: UInt64) {
      self.fd = fd
      self.request = request
      self.idOffset = idOffset
      self.idPrefix = idPrefix
    }
  }

  private let connections: [Connection]
  private let window: LoadWindow
  private let epoll: Int32

  init(
    clients: [SendLoad.Client], configuration: SendLoadConfiguration, window: LoadWindow,
    seed: UInt64
  ) throws(LoadError) {
    self.window = window
    epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
    guard epoll >= 0 else { throw .system("epoll_create1") }
    var random = SplitMix64(seed: seed ^ UInt64(monotonicNanoseconds()))
    var connections: [Connection] = []
    for client in clients {
      let fd: Int32
      do {
        fd = try LoadSocket.connect(host: configuration.host, port: client.port)
      } catch {
        close(epoll)
        for connection in connections { close(connection.fd) }
        throw error
      }
      LoadSocket.setNonBlocking(fd)
      let text = String(repeating: "x", count: configuration.textBytes)
      let placeholder = String(repeating: "0", count: 36)
      let body = #"{"clientMessageId":"\#(placeholder)","text":"\#(text)"}"#
      let head =
        "POST /v1/conversations/\(client.conversation)/messages HTTP/1.1\r\n"
        + "Host: \(configuration.host)\r\nAuthorization: Bearer \(client.token)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
      let request = Array((head + body).utf8)
      let idOffset = head.utf8.count + #"{"clientMessageId":""#.utf8.count
      connections.append(
        Connection(fd: fd, request: request, idOffset: idOffset, idPrefix: random.next()))
    }
    self.connections = connections
  }

  deinit {
    close(epoll)
    for connection in connections { close(connection.fd) }
  }

  /// Watches `connection` for reading, and for writing too while part of a request waits.
  private func watch(_ index: Int, writable: Bool, add: Bool = false) throws(LoadError) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
    event.data.u64 = UInt64(index)
    let operation = add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
    guard epoll_ctl(epoll, operation, connections[index].fd, &event) == 0 else {
      throw .system("epoll_ctl")
    }
  }

  func run(cpuProbe: CPUProbe?) throws(LoadError) -> LoopResult {
    for index in connections.indices { try watch(index, writable: false, add: true) }
    var result = LoopResult()
    result.latencies.reserveCapacity(200_000)
    for index in connections.indices { try send(index) }
    var open = connections.count
    var events = [epoll_event](repeating: epoll_event(), count: 256)
    var chunk = [UInt8](repeating: 0, count: 65_536)
    let giveUpAt = window.stopSendingAt + 30_000_000_000
    while open > 0 {
      let ready = events.withUnsafeMutableBufferPointer {
        epoll_wait(epoll, $0.baseAddress, Int32($0.count), 100)
      }
      let now = monotonicNanoseconds()
      cpuProbe?.takeIfDue(now: now)
      if ready < 0 {
        if errno == EINTR { continue }
        throw .system("epoll_wait")
      }
      if now > giveUpAt { throw LoadError("answers stopped coming: the server is stuck") }
      for slot in 0..<Int(ready) {
        let index = Int(events[slot].data.u64)
        let connection = connections[index]
        if connection.written < connection.request.count { try flush(index) }
        while true {
          let count = chunk.withUnsafeMutableBytes {
            recv(connection.fd, $0.baseAddress, $0.count, 0)
          }
          if count < 0 {
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            throw .system("recv")
          }
          if count == 0 { throw LoadError("the server closed a connection") }
          chunk.withUnsafeBytes {
            connection.reader.append(UnsafeRawBufferPointer(rebasing: $0[..<count]))
          }
          if count < chunk.count { break }
        }
        let answeredAt = monotonicNanoseconds()
        while let response = try connection.reader.next() {
          result.statuses[String(response.status), default: 0] += 1
          if response.status == 201 {
            result.acceptedTotal += 1
            if answeredAt >= window.measureFrom && answeredAt <= window.stopSendingAt {
              result.acceptedInWindow += 1
              result.latencies.append(answeredAt - connection.sentAt)
            }
          }
          if answeredAt < window.stopSendingAt {
            try send(index)
          } else if !connection.finished {
            connection.finished = true
            open -= 1
          }
        }
      }
    }
    return result
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// Writes a fresh clientMessageId into the template and starts writing it.
  private func send(_ index: Int) throws(LoadError) {
    let connection = connections[index]
    connection.counter += 1
    let high = connection.idPrefix
    let low = connection.counter
    connection.request.withUnsafeMutableBufferPointer { bytes in
      var position = connection.idOffset
      var nibble = 0
      // 32 hex digits: the prefix, then the counter; dashes after 8, 12, 16 and 20 digits.
      for digit in 0..<32 {
        if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
          bytes[position] = UInt8(ascii: "-")
          position += 1
        }
        let value = digit < 16 ? high >> (60 - 4 * digit) : low >> (60 - 4 * (digit - 16))
        nibble = Int(value & 0xF)
        bytes[position] = Self.hexDigits[nibble]
        position += 1
      }
    }
    connection.sentAt = monotonicNanoseconds()
    connection.written = 0
    try flush(index)
  }

  private func flush(_ index: Int) throws(LoadError) {
    let connection = connections[index]
    let wasWaiting = connection.written > 0
    while connection.written < connection.request.count {
      let written = connection.request.withUnsafeBytes {
        Glibc.send(
          connection.fd, $0.baseAddress! + connection.written, $0.count - connection.written,
          Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR { continue }
        // The rest goes out when the socket is writable again.
        if errno == EAGAIN || errno == EWOULDBLOCK { return try watch(index, writable: true) }
        throw .system("send")
      }
      connection.written += written
    }
    if wasWaiting { try watch(index, writable: false) }
  }
}
