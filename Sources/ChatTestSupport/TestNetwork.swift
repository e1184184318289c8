import ChatAPI
import ChatData
import ChatServer
import ChatWorld
import Support

/// One device's network in a test world: ChatWorld's `FaultyNetwork` (its switch, queued
/// faults and records) over in-process transports to the world's shared `ChatService`, on the
/// world's executor.
public final class TestNetwork: Sendable {
  /// The faults and the records; the switches below are its.
  public let faults: FaultyNetwork
  public let http: any HTTPTransport
  public let live: any LiveTransport

  init(service: ChatService, executor: any SerialTaskExecutor, clock: any TimeSource) {
    faults = FaultyNetwork(
      random: SeededRandomSource(seed: 1), clock: clock, executor: executor, injector: "the test")
    http = faults.http(ServiceHTTP(service: service))
    live = faults.live(ServiceLive(service: service, executor: executor))
  }

  /// Offline: requests fail as unreachable, sockets cannot open, and open ones drop.
  public var isOnline: Bool {
    get { faults.isOnline }
    set { faults.isOnline = newValue }
  }

  /// A proxy on the way refuses every WebSocket upgrade (403) while HTTP goes through.
  public var blocksWebSockets: Bool {
    get { faults.blocksWebSockets }
    set { faults.blocksWebSockets = newValue }
  }

  /// The next `count` requests matching `match` get `fault`.
  public func failNext(_ count: Int, with fault: HTTPFault, where match: RequestMatch = .any) {
    faults.failNext(count, with: fault, where: match)
  }

  /// The next events on this device's socket suffer `fault`.
  public func disturbEvents(_ fault: EventFault) { faults.disturbEvents(fault) }

  /// Drops every open socket, as a tunnel would.
  public func dropSockets() { faults.dropSockets() }

  /// Requests wait, unanswered, until `release()`.
  public func hold() { faults.hold() }
  public func release() { faults.release() }

  /// Every request this device sent, in order (the fault-injected ones included).
  public var requests: [APIRequest] { faults.requests }
  /// The requests that reached the server, in the order it got them.
  public var delivered: [APIRequest] { faults.delivered }
  public var openSockets: Int { faults.openSockets }
  /// How many times this device tried to open its socket.
  public var connectAttempts: Int { faults.connectAttempts }
}

/// Requests handled by the service in this process.
struct ServiceHTTP: HTTPTransport {
  let service: ChatService

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    await service.handle(request)
  }
}

/// `/v1/live` opened on the service in this process.
struct ServiceLive: LiveTransport {
  let service: ChatService
  let executor: any SerialTaskExecutor

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    switch await service.openLive(APIRequest(.live, headers: headers)) {
    case .refused(let response):
      throw .rejected(status: response.status)
    case .accepted(let subscription):
      let socket = ServiceSocket(subscription: subscription, executor: executor)
      socket.startPumping()
      return socket
    }
  }
}

/// A socket to the service in this process: its subscription's events, pumped on the world's
/// executor.
final class ServiceSocket: LiveSocket, Sendable {
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let subscription: LiveSubscription
  private let executor: any SerialTaskExecutor
  private let pump = Locked<Task<Void, Never>?>(nil)

  init(subscription: LiveSubscription, executor: any SerialTaskExecutor) {
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
    self.subscription = subscription
    self.executor = executor
  }

  func startPumping() {
    let task = executor.spawn {
      for await event in self.subscription.events { self.continuation.yield(event) }
      // The server ended it (fell behind, token expired, signed out): closed, as a real
      // socket is once its close frame went.
      self.continuation.finish()
    }
    pump.withLock { $0 = task }
  }

  func send(_ text: String) async throws {
    await subscription.receive(text)
  }

  func close() async {
    pump.value?.cancel()
    continuation.finish()
    let subscription = subscription
    executor.spawn { await subscription.close() }
  }
}
