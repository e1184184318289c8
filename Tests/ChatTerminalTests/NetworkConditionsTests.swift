import ChatAPI
import ChatData
import Support
import Testing

@testable import ChatTerminal

/// The demo's network switch: each condition is faults of ChatWorld's `FaultyNetwork` around
/// the real transports (here, recording ones at the seam).
@Suite struct NetworkConditionsTests {
  @Test func offlineRefusesEverythingAndReportsTheNetworkComingBack() async throws {
    let conditions = NetworkConditions(random: SeededRandomSource(seed: 1))
    let server = RecordingServer()
    var reports = conditions.reachability().makeAsyncIterator()
    conditions.condition = .offline
    await #expect(throws: TransportError.unreachable("the network is offline (simulated)")) {
      try await conditions.http(server).send(APIRequest(.sync))
    }
    await #expect(throws: LiveConnectError.self) {
      try await conditions.live(server).connect(headers: [:])
    }
    #expect(server.requests == 0 && server.connects == 0)
    conditions.condition = .normal
    #expect(await reports.next() == false)
    #expect(await reports.next() == true)
    _ = try await conditions.http(server).send(APIRequest(.sync))
    #expect(server.requests == 1)
  }

  @Test func switchingOfflineDropsAnOpenSocketAndClosesTheRealOne() async throws {
    let conditions = NetworkConditions(random: SeededRandomSource(seed: 1))
    let server = RecordingServer()
    let socket = try await conditions.live(server).connect(headers: [:])
    server.socket.push("one")
    var frames = socket.messages.makeAsyncIterator()
    #expect(await frames.next() == "one")
    conditions.condition = .offline
    #expect(await frames.next() == nil)
    await server.socket.waitUntilClosed()
  }

  /// Flaky: a quarter of the requests never reach the server (a timeout), and 15% of those
  /// that do lose their reply (a timeout after the server acted). Seeded, so the counts repeat.
  @Test func flakyLosesRequestsAndRepliesAtItsRates() async {
    let conditions = NetworkConditions(random: SeededRandomSource(seed: 42))
    conditions.condition = .flaky
    let server = RecordingServer()
    let http = conditions.http(server)
    var answered = 0
    var timedOut = 0
    for _ in 0..<1_000 {
      do {
        _ = try await http.send(APIRequest(.sync))
        answered += 1
      } catch {
        #expect(error == .timeout)
        timedOut += 1
      }
    }
    let lostOnTheWay = 1_000 - server.requests
    let lostReplies = server.requests - answered
    #expect((200...300).contains(lostOnTheWay))
    #expect((70...150).contains(lostReplies))
    #expect(timedOut == lostOnTheWay + lostReplies)
  }

  @Test func slowWaitsOnTheClockBeforeEachRequestAndFrame() async throws {
    let clock = RecordingClock()
    let conditions = NetworkConditions(random: SeededRandomSource(seed: 1), clock: clock)
    conditions.condition = .slow
    let server = RecordingServer()
    _ = try await conditions.http(server).send(APIRequest(.sync))
    #expect(clock.sleeps == [.milliseconds(800)])
    let socket = try await conditions.live(server).connect(headers: [:])
    server.socket.push("late")
    var frames = socket.messages.makeAsyncIterator()
    #expect(await frames.next() == "late")
    #expect(clock.sleeps == Array(repeating: .milliseconds(800), count: 3))
    #expect(server.requests == 1)
  }
}

/// The real transports' seam, recording what reached it: every request answers 200, and the
/// one socket is fed by the test.
private final class RecordingServer: HTTPTransport, LiveTransport, Sendable {
  private let counts = Locked((requests: 0, connects: 0))
  let socket = PushedSocket()

  var requests: Int { counts.value.requests }
  var connects: Int { counts.value.connects }

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    counts.withLock { $0.requests += 1 }
    return APIResponse(status: 200)
  }

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    counts.withLock { $0.connects += 1 }
    return socket
  }
}

private final class PushedSocket: LiveSocket, Sendable {
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let closed: AsyncStream<Void>
  private let closing: AsyncStream<Void>.Continuation

  init() {
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
    (closed, closing) = AsyncStream.makeStream(of: Void.self)
  }

  func push(_ frame: String) { continuation.yield(frame) }

  func send(_ text: String) async throws {}

  func close() async {
    continuation.finish()
    closing.yield()
    closing.finish()
  }

  /// Returns once `close()` was called.
  func waitUntilClosed() async {
    for await _ in closed { return }
  }
}

/// A clock whose sleeps return at once and are recorded.
private final class RecordingClock: TimeSource, Sendable {
  private let recorded = Locked<[Duration]>([])
  var sleeps: [Duration] { recorded.value }

  func now() -> Timestamp { Timestamp(nanosecondsSince1970: 0) }
  func uptime() -> Duration { .zero }
  func sleep(for duration: Duration) async throws {
    recorded.withLock { $0.append(duration) }
  }
}
