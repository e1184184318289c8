import Testing

@testable import Wire

@Suite struct ServerAndClientTests {
  @Test func acceptValueMatchesTheRFCExample() {
    #expect(
      WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==")
        == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func serverAnswersHTTPWithKeepAliveAndCloses() async throws {
    let (server, port) = try startTestServer()
    let response = await rawExchange(
      port: port,
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    #expect(response.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
    #expect(response.hasSuffix("Connection: close\r\n\r\nok"))
    await server.shutdown()
  }

  /// The header timeout answers, and no other: the 408 says the headers were late, the
  /// server reports it as a timeout, and it comes no earlier than the timeout (the loop counts
  /// whole milliseconds, hence 299). Nothing else could answer within `rawExchange`'s 30 s
  /// read: the server's idle timeout is 60 s, and its body and write timeouts need a body or
  /// a reply that this exchange never gets to.
  @Test func incompleteHeadersGet408AfterTheHeaderTimeout() async throws {
    let (rejections, continuation) = AsyncStream<HTTPRejection>.makeStream()
    let (server, port) = try startTestServer { configuration in
      configuration.headerTimeout = .milliseconds(300)
      configuration.tickInterval = .milliseconds(50)
      configuration.onRejected = { continuation.yield($0) }
    }
    let started = ContinuousClock.now
    let response = await rawExchange(port: port, "GET /healthz HTTP/1.1\r\nHost: exa")
    let waited = ContinuousClock.now - started
    #expect(response.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    #expect(response.contains("\"code\":\"timeout\""))
    #expect(response.contains("The headers did not arrive in time."))
    #expect(waited >= .milliseconds(299))
    let rejection = try await withTimeout(seconds: 60) { await rejections.first { _ in true } }
    #expect(rejection?.status == .requestTimeout)
    #expect(rejection?.code == "timeout")
    await server.shutdown()
  }

  @Test func bodyOverTheConfiguredLimitIs413AndTheConnectionCloses() async throws {
    let (server, port) = try startTestServer { configuration in
      configuration.limits.body = 10
    }
    let response = await rawExchange(
      port: port,
      "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world"
        + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(response.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"))
    #expect(response.contains("\"code\":\"too_large\""))
    #expect(response.components(separatedBy: "HTTP/1.1 ").count == 2)
    await server.shutdown()
  }

  @Test func requestsTheServerAnswersItselfAreReported() async throws {
    let (rejections, continuation) = AsyncStream<HTTPRejection>.makeStream()
    let (server, port) = try startTestServer { configuration in
      configuration.limits.body = 10
      configuration.onRejected = { continuation.yield($0) }
    }
    _ = await rawExchange(port: port, "GARBAGE\r\n\r\n")
    _ = await rawExchange(
      port: port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world")
    let reported = try await withTimeout(seconds: 60) {
      var reported: [HTTPRejection] = []
      for await rejection in rejections {
        reported.append(rejection)
        if reported.count == 2 { break }
      }
      return reported
    }
    #expect(reported.map(\.status) == [.badRequest, .payloadTooLarge])
    #expect(reported.map(\.code) == ["bad_request", "too_large"])
    #expect(reported.allSatisfy { $0.remoteAddress == "127.0.0.1" })
    await server.shutdown()
  }

  @Test func clientAndServerExchangeTextMessages() async throws {
    let (server, port) = try startTestServer()
    let replies = try await withTimeout(seconds: 60) {
      let socket = try await WebSocketClient.connect(
        to: "ws://127.0.0.1:\(port)/echo", headers: ["Authorization": "Bearer good"],
        connectTimeout: .seconds(60))
      for index in 0..<3 { try socket.send(text: "m\(index) ✓") }
      var replies: [String] = []
      for await text in socket.messages {
        replies.append(text)
        if replies.count == 3 { socket.close() }
      }
      await socket.waitUntilClosed()
      #expect(socket.closeCode == .normalClosure)
      return replies
    }
    #expect(replies == ["echo: m0 ✓", "echo: m1 ✓", "echo: m2 ✓"])
    await server.shutdown()
  }

  /// A handler that never iterates `messages` but waits in `waitUntilClosed()` echoes the
  /// client's close at once. The server's close timeout is an hour, so only that echo can
  /// come back before the client gives up (its own close timeout, 5 s); and the client ends
  /// with the echo's reason (empty), not its own "bye", only if the echo came back.
  @Test func pushOnlyHandlerAnswersTheClientsCloseAtOnce() async throws {
    let (server, port) = try startTestServer { configuration in
      configuration.webSocket.closeTimeout = .seconds(3_600)
    }
    let socket = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/push-only", connectTimeout: .seconds(60))
    var iterator = socket.messages.makeAsyncIterator()
    #expect(await iterator.next() == "hello")
    socket.close(code: .normalClosure, reason: "bye")
    try await withTimeout(seconds: 60) { await socket.waitUntilClosed() }
    #expect(socket.closeCode == .normalClosure)
    #expect(socket.closeReason == "")
    await server.shutdown()
  }

  @Test func refusedHandshakeCarriesTheHTTPStatus() async throws {
    let (server, port) = try startTestServer()
    do {
      _ = try await WebSocketClient.connect(
        to: "ws://127.0.0.1:\(port)/echo", connectTimeout: .seconds(60))
      Issue.record("the upgrade should have been refused")
    } catch .handshakeRejected(let status, let headers) {
      #expect(status == 401)
      #expect(headers["Content-Type"]?.hasPrefix("application/json") == true)
    } catch {
      Issue.record("unexpected error \(error)")
    }
    await server.shutdown()
  }

  @Test func shutdownClosesWebSocketsWith1001AndStopsAccepting() async throws {
    let (server, port) = try startTestServer()
    let socket = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/echo", headers: ["Authorization": "Bearer good"],
      connectTimeout: .seconds(60))
    try socket.send(text: "ready?")
    var iterator = socket.messages.makeAsyncIterator()
    #expect(await iterator.next() == "echo: ready?")
    await server.shutdown()
    try await withTimeout(seconds: 30) { await socket.waitUntilClosed() }
    #expect(socket.closeCode == .goingAway)
    do {
      _ = try await WebSocketClient.connect(
        to: "ws://127.0.0.1:\(port)/echo", connectTimeout: .seconds(60))
      Issue.record("connected after shutdown")
    } catch .connectionFailed {
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test func consumerThatFallsBehindClosesWith1008InsteadOfLosingMessages() async throws {
    let (server, port) = try startTestServer()
    var configuration = WebSocketConfiguration()
    configuration.maxQueuedMessages = 4
    let socket = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/push?count=50", configuration: configuration,
      connectTimeout: .seconds(60))
    try await withTimeout(seconds: 60) { await socket.waitUntilClosed() }
    #expect(socket.closeCode == .policyViolation)
    var received: [String] = []
    for await text in socket.messages { received.append(text) }
    #expect(received == ["push 0", "push 1", "push 2", "push 3"])
    await server.shutdown()
  }

  @Test func queuedBytesAreBoundedToo() async throws {
    let (server, port) = try startTestServer()
    var configuration = WebSocketConfiguration()
    configuration.maxQueuedBytes = 4000
    let socket = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/push?count=20&size=993", configuration: configuration,
      connectTimeout: .seconds(60))
    try await withTimeout(seconds: 60) { await socket.waitUntilClosed() }
    #expect(socket.closeCode == .policyViolation)
    var received = 0
    for await _ in socket.messages { received += 1 }
    #expect(received == 4)
    await server.shutdown()
  }

  @Test func connectingToAClosedPortFailsWithoutHanging() async throws {
    let outcome = try await withTimeout(seconds: 30) { () -> String in
      do {
        _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:1/x")
        return "connected"
      } catch let error as WebSocketClientError {
        if case .connectionFailed = error { return "refused" }
        return "\(error)"
      }
    }
    #expect(outcome == "refused")
  }

  @Test func invalidURLsAreRefused() async {
    for url in [
      "wsx://example/x", "http://example/", "ws://", "ws://host:99999/", "wss://", "wss://h:0/",
    ] {
      do {
        _ = try await WebSocketClient.connect(to: url)
        Issue.record("\(url) was accepted")
      } catch .invalidURL {
      } catch {
        Issue.record("\(url): unexpected \(error)")
      }
    }
  }
}

/// An actor on a custom serial executor (as the client engine's actors are) that owns a
/// WebSocket: the I/O runs on Wire's loop, never on this executor's thread.
actor LiveSession {
  nonisolated let unownedExecutor: UnownedSerialExecutor
  private var socket: WebSocket?

  init(executor: ThreadExecutor) {
    unownedExecutor = executor.asUnownedSerialExecutor()
  }

  func open(port: Int) async throws {
    // 60 s: a hang guard. Under a clean-clone CI run's start-up load the handshake has taken
    // more than the default 10 s.
    socket = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/echo", headers: ["Authorization": "Bearer good"],
      connectTimeout: .seconds(60))
  }

  func roundTrip(_ text: String) async throws -> String? {
    guard let socket else { return nil }
    try socket.send(text: text)
    var iterator = socket.messages.makeAsyncIterator()
    return await iterator.next()
  }

  func close() async {
    socket?.close()
    await socket?.waitUntilClosed()
  }
}

@Suite struct CustomExecutorTests {
  @Test func clientWorksFromAnActorOnACustomSerialExecutor() async throws {
    let (server, port) = try startTestServer()
    let executor = ThreadExecutor()
    let session = LiveSession(executor: executor)
    let reply = try await withTimeout(seconds: 60) {
      try await session.open(port: port)
      let reply = try await session.roundTrip("from the engine's executor")
      await session.close()
      return reply
    }
    #expect(reply == "echo: from the engine's executor")
    executor.shutdown()
    await server.shutdown()
  }
}

/// The shape of the client engine's `LiveTransport` connection, to show the adapter over
/// ``WebSocket`` is a few lines.
protocol LiveConnectionShape: Sendable {
  var messages: AsyncStream<String> { get }
  func send(_ text: String) async throws
  func close() async
}

struct WireLiveConnection: LiveConnectionShape {
  let socket: WebSocket
  let messages: AsyncStream<String>

  init(_ socket: WebSocket) {
    self.socket = socket
    messages = socket.makeMessageStream()
  }

  func send(_ text: String) async throws { try socket.send(text: text) }

  func close() async {
    socket.close()
    await socket.waitUntilClosed()
  }
}

@Suite struct LiveTransportAdapterTests {
  @Test func messageStreamAdapterDeliversAndFinishesOnClose() async throws {
    let (server, port) = try startTestServer()
    let received = try await withTimeout(seconds: 60) {
      let connection: any LiveConnectionShape = WireLiveConnection(
        try await WebSocketClient.connect(
          to: "ws://127.0.0.1:\(port)/echo", headers: ["Authorization": "Bearer good"],
          connectTimeout: .seconds(60)))
      try await connection.send("one")
      try await connection.send("two")
      var received: [String] = []
      for await text in connection.messages {
        received.append(text)
        if received.count == 2 { await connection.close() }
      }
      return received
    }
    #expect(received == ["echo: one", "echo: two"])
    await server.shutdown()
  }
}
