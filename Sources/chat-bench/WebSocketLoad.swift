import ChatLoad
import Foundation
import Wire

/// The WebSocket clients of B7 (fan-out), B8 (echo) and B14 (a live event across nodes):
/// ``ClientChannel``s on one ``ClientLoop`` of their own, opened by Wire's handshake and read by
/// Wire's decoder (pings answered). The same code drives our server and the peer, so neither
/// gets a different client.
final class WebSocketLoad: Sendable {
  let loop: ClientLoop
  /// The open sockets; use them only on `loop`'s thread.
  let sockets: [ClientChannel]

  private init(loop: ClientLoop, sockets: [ClientChannel]) {
    self.loop = loop
    self.sockets = sockets
  }

  /// Opens `count` WebSockets to `path` on 127.0.0.1:`port`, `batch` handshakes in flight at a
  /// time, on a new loop named `name`; `headers` gives each one's extra fields.
  static func open(
    count: Int, port: Int, path: String, name: String, batch: Int = 250,
    headers: (Int) -> HTTPHeaders = { _ in [:] }
  ) throws -> WebSocketLoad {
    let loop = try ClientLoop(name: name)
    let opener = Opener(
      count: count, port: port, path: path, batch: batch, headers: (0..<count).map(headers),
      loop: loop)
    let outcome = loop.wait(until: Nanos.now() + 120_000_000_000) { reply in opener.start(reply) }
    switch outcome {
    case .success(let sockets)?:
      return WebSocketLoad(loop: loop, sockets: sockets)
    case .failure(let error)?:
      loop.stop()
      throw error
    case nil:
      loop.execute { opener.abandon() }
      loop.stop()
      throw BenchError("\(count) WebSockets did not open within 120 s")
    }
  }

  /// Closes every socket and ends the loop.
  func close() {
    let sockets = sockets
    loop.execute { for socket in sockets { socket.close() } }
    loop.stop()
  }

  /// The CPU time the loop's thread has used so far, in nanoseconds.
  func loopCPUTime() -> Int64 {
    loop.wait(until: Nanos.now() + 10_000_000_000) { reply in reply(CPUTime.thread()) } ?? 0
  }

  /// A client text frame (masked, as RFC 6455 requires of clients), written by Wire's encoder
  /// with a fixed key (the load needs no fresh key per frame).
  static func textFrame(_ payload: [UInt8]) -> [UInt8] {
    WebSocketFrame.encode(opcode: .text, payload: payload, maskingKey: 0x37FA_213D)
  }

  /// Opens the sockets on the loop: connect, then the upgrade, `batch` at a time.
  private final class Opener: @unchecked Sendable {
    // @unchecked: made on the caller's thread, then touched only on the loop's thread.
    let count: Int
    let port: Int
    let path: String
    let batch: Int
    let headers: [HTTPHeaders]
    let loop: ClientLoop
    private var sockets: [ClientChannel?]
    private var next = 0
    private var opened = 0
    private var reply: (@Sendable (Result<[ClientChannel], BenchError>) -> Void)?

    init(
      count: Int, port: Int, path: String, batch: Int, headers: [HTTPHeaders], loop: ClientLoop
    ) {
      (self.count, self.port, self.path, self.batch) = (count, port, path, batch)
      (self.headers, self.loop) = (headers, loop)
      sockets = Array(repeating: nil, count: count)
    }

    func start(_ reply: @escaping @Sendable (Result<[ClientChannel], BenchError>) -> Void) {
      self.reply = reply
      if count == 0 { return finish(.success([])) }
      for _ in 0..<min(batch, count) { openNext() }
    }

    /// The caller stopped waiting: closes what is open.
    func abandon() {
      reply = nil
      for socket in sockets { socket?.close() }
    }

    private func openNext() {
      guard next < count, reply != nil else { return }
      let index = next
      next += 1
      ClientChannel.connect(host: "127.0.0.1", port: port, on: loop) { [self] result in
        switch result {
        case .failure(let error):
          finish(.failure(BenchError("WebSocket \(index) could not connect: \(error)")))
        case .success(let socket):
          upgrade(socket, index)
        }
      }
    }

    private func upgrade(_ socket: ClientChannel, _ index: Int) {
      sockets[index] = socket
      socket.onClose = { [self] failure in
        finish(.failure(BenchError("WebSocket \(index) ended while opening: \(failure)")))
      }
      socket.upgradeToWebSocket(target: path, hostHeader: "127.0.0.1", headers: headers[index]) {
        [self] outcome in
        guard case .success = outcome else {
          return finish(.failure(BenchError("WebSocket handshake refused: \(outcome)")))
        }
        opened += 1
        if opened == count {
          finish(.success(sockets.compactMap { $0 }))
        } else {
          openNext()
        }
      }
    }

    private func finish(_ outcome: Result<[ClientChannel], BenchError>) {
      guard let reply else { return }
      self.reply = nil
      if case .failure = outcome { abandon() }
      reply(outcome)
    }
  }
}
