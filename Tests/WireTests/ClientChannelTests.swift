import Synchronization
import Testing

@testable import Wire

/// What a test hears from one channel, gathered on the loop's thread.
private final class Heard: Sendable {
  private let lines = Mutex<[String]>([])
  private let waiter = Mutex<(count: Int, CheckedContinuation<[String], Never>)?>(nil)

  func add(_ line: String) {
    let (all, ready) = lines.withLock {
      lines -> ([String], CheckedContinuation<[String], Never>?) in
      lines.append(line)
      let ready = waiter.withLock { waiter -> CheckedContinuation<[String], Never>? in
        guard let (count, continuation) = waiter, lines.count >= count else { return nil }
        waiter = nil
        return continuation
      }
      return (lines, ready)
    }
    ready?.resume(returning: all)
  }

  /// The lines, once there are `count` of them.
  func first(_ count: Int) async -> [String] {
    await withCheckedContinuation { continuation in
      let now = lines.withLock { lines -> [String]? in
        if lines.count >= count { return lines }
        waiter.withLock { $0 = (count, continuation) }
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
  }
}

/// Connects a channel to 127.0.0.1:`port` on `loop` and runs `setUp` with it on the loop's
/// thread; what it reports goes to `heard`.
private func withChannel(
  port: Int, on loop: ClientLoop, heard: Heard,
  _ setUp: @escaping @Sendable (ClientChannel) -> Void
) {
  ClientChannel.connect(host: "127.0.0.1", port: port, on: loop) { result in
    switch result {
    case .failure(let error): heard.add("connect failed: \(error)")
    case .success(let channel):
      channel.onResponse = { head, body in
        heard.add("\(head.status.code) \(String(decoding: body, as: UTF8.self))")
      }
      channel.onMessage = { event in heard.add("message \(event)") }
      channel.onClose = { failure in heard.add("closed: \(failure)") }
      setUp(channel)
    }
  }
}

private func request(_ method: String, _ target: String) -> [UInt8] {
  Array("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
}

@Suite struct ClientChannelTests {
  @Test func pipelinedRequestsGetTheirResponsesInOrder() async throws {
    let (server, port) = try startTestServer()
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    withChannel(port: port, on: loop, heard: heard) { channel in
      channel.send(request: request("GET", "/big?size=3"))
      channel.send(request: request("HEAD", "/big?size=5"), method: .head)
      channel.send(request: request("GET", "/healthz"))
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(3) }
    #expect(lines == ["200 xxx", "200 ", "200 ok"])
    loop.stop()
    await server.shutdown()
  }

  @Test func aRequestMadeByHTTPClientRequestIsTheClientsBytes() throws {
    let bytes = try HTTPClientRequest(
      url: "http://127.0.0.1:8080/v1/x?y=1", method: .post, headers: ["A": "b"],
      body: Array("{}".utf8)
    ).serialized()
    #expect(
      String(decoding: bytes, as: UTF8.self)
        == "POST /v1/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nA: b\r\nContent-Length: 2\r\n\r\n{}")
  }

  @Test func anUpgradedChannelSendsFramesAndHearsMessages() async throws {
    let (server, port) = try startTestServer()
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    withChannel(port: port, on: loop, heard: heard) { channel in
      channel.upgradeToWebSocket(
        target: "/echo", hostHeader: "127.0.0.1", headers: ["Authorization": "Bearer good"]
      ) { result in
        heard.add("upgrade \(result)")
        channel.onMessage = { event in
          heard.add("message \(event)")
          channel.close()
        }
        channel.send(
          WebSocketFrame.encode(opcode: .text, payload: Array("hi".utf8), maskingKey: 7))
      }
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(2) }
    #expect(lines == ["upgrade success()", "message text(\"echo: hi\")"])
    loop.stop()
    await server.shutdown()
  }

  @Test func aRefusedUpgradeSaysItsStatus() async throws {
    let (server, port) = try startTestServer()
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    withChannel(port: port, on: loop, heard: heard) { channel in
      channel.upgradeToWebSocket(target: "/echo", hostHeader: "127.0.0.1") { result in
        heard.add("upgrade \(result)")
      }
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(1) }
    #expect(lines == ["upgrade failure(the server refused the WebSocket with 401)"])
    loop.stop()
    await server.shutdown()
  }

  @Test func aServerThatClosesBeforeAnsweringIsToldOnce() async throws {
    let server = try ScriptedServer { connection in
      _ = connection.readRequest()
      connection.closeWithFIN()
    }
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    withChannel(port: server.port, on: loop, heard: heard) { channel in
      channel.send(request: request("GET", "/"))
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(1) }
    #expect(lines == ["closed: the server closed the connection"])
    loop.stop()
    server.stop()
  }

  @Test func aMalformedResponseEndsTheChannelWithTheParsersReason() async throws {
    let server = try ScriptedServer { connection in
      _ = connection.readRequest()
      connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx")
      connection.waitForPeerToClose()
    }
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    withChannel(port: server.port, on: loop, heard: heard) { channel in
      channel.send(request: request("GET", "/"))
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(1) }
    #expect(lines == ["closed: invalid response: More than one Content-Length field."])
    loop.stop()
    server.stop()
  }

  @Test func onlyANumericAddressIsConnected() async throws {
    let loop = try ClientLoop(name: "test-channel")
    let heard = Heard()
    ClientChannel.connect(host: "localhost", port: 1, on: loop) { result in
      if case .failure(let error) = result { heard.add("\(error)") }
    }
    let lines = try await withTimeout(seconds: 30) { await heard.first(1) }
    #expect(lines == ["no such host localhost: not a numeric address"])
    loop.stop()
  }
}
