import ChatAPI
import ChatData
import ChatServer
import Foundation
import SQLite
import Support

/// A fault the test server applies to a request instead of (or after) answering it.
public enum HTTPFault: Sendable, Equatable {
  /// Answer with this status without reaching the service (503, 429 + Retry-After, 4xx).
  case status(Int, retryAfter: Int? = nil)
  /// No reply in time; the service never saw the request.
  case timeout
  /// The network is unreachable.
  case offline
  /// The service handles the request (a send is committed), then the reply is lost: the client
  /// sees a timeout. The case a client message ID exists for.
  case loseReply
  /// The service handles the request, then the reply waits until `release()`: a reply still on
  /// its way while other things happen.
  case holdReply
}

/// Which requests a fault applies to.
public struct RequestMatch: Sendable {
  let test: @Sendable (APIRequest) -> Bool

  public init(_ test: @escaping @Sendable (APIRequest) -> Bool) { self.test = test }

  public static let any = RequestMatch { _ in true }
  /// `POST …/messages`: sends.
  public static let sends = RequestMatch { $0.method == "POST" && $0.path.hasSuffix("/messages") }
  /// `GET …/messages`: catch-ups and history.
  public static let fetches = RequestMatch { $0.method == "GET" && $0.path.hasSuffix("/messages") }
  public static let receipts = RequestMatch { $0.path.hasSuffix("/receipts") }
  public static let reads = RequestMatch { $0.method == "POST" && $0.path.hasSuffix("/read") }
}

/// What happens to the live events on a device's socket.
public enum EventFault: Sendable, Equatable {
  /// The next `n` events are lost.
  case skip(Int)
  /// The next `n` events arrive twice.
  case duplicate(Int)
  /// The next two events arrive in the opposite order.
  case swapNextTwo
}

/// One device's network: the HTTP and live transports an engine is given, in front of the
/// shared `ChatService`, with a switch for connectivity and the fault rules.
public final class TestNetwork: Sendable {
  private struct State {
    var online = true
    var blocksWebSockets = false
    var rules: [(match: RequestMatch, fault: HTTPFault, remaining: Int)] = []
    var eventFaults: [EventFault] = []
    var requests: [APIRequest] = []
    var delivered: [APIRequest] = []
    var held: [CheckedContinuation<Void, Never>]? = nil
    var heldReplies: [CheckedContinuation<Void, Never>] = []
    var sockets: [Int: TestSocket] = [:]
    var nextSocket = 0
    var connects = 0
  }

  private let state = Locked(State())
  let service: ChatService
  let executor: any SerialTaskExecutor

  init(service: ChatService, executor: any SerialTaskExecutor) {
    self.service = service
    self.executor = executor
  }

  public var http: any HTTPTransport { HTTPSide(network: self) }
  public var live: any LiveTransport { LiveSide(network: self) }

  // MARK: - Switches

  /// Offline: requests fail as unreachable, sockets cannot open, and open ones drop.
  public var isOnline: Bool {
    get { state.withLock { state in state.online } }
    set {
      let dropped = state.withLock { state -> [TestSocket] in
        state.online = newValue
        return newValue ? [] : Array(state.sockets.values)
      }
      for socket in dropped { socket.drop() }
    }
  }

  /// The next `count` requests matching `match` get `fault`.
  public func failNext(_ count: Int, with fault: HTTPFault, where match: RequestMatch = .any) {
    state.withLock { state in state.rules.append((match, fault, count)) }
  }

  /// The next events on this device's socket suffer `fault`.
  public func disturbEvents(_ fault: EventFault) {
    state.withLock { state in state.eventFaults.append(fault) }
  }

  /// Drops every open socket, as a tunnel would.
  public func dropSockets() {
    for socket in state.withLock({ state in Array(state.sockets.values) }) { socket.drop() }
  }

  /// Requests wait, unanswered, until `release()` (which also releases replies held by
  /// `.holdReply`).
  public func hold() {
    state.withLock { state in if state.held == nil { state.held = [] } }
  }

  public func release() {
    let waiting = state.withLock { state in
      defer {
        state.held = nil
        state.heldReplies = []
      }
      return (state.held ?? []) + state.heldReplies
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Every request this device sent, in order (the fault-injected ones included).
  public var requests: [APIRequest] { state.withLock { state in state.requests } }

  /// The requests that reached the server, in the order it got them.
  public var delivered: [APIRequest] { state.withLock { state in state.delivered } }

  public var openSockets: Int { state.withLock { state in state.sockets.count } }

  /// A proxy on the way refuses every WebSocket upgrade (403) while HTTP goes through.
  public var blocksWebSockets: Bool {
    get { state.withLock { state in state.blocksWebSockets } }
    set { state.withLock { state in state.blocksWebSockets = newValue } }
  }

  /// How many times this device tried to open its socket.
  public var connectAttempts: Int { state.withLock { state in state.connects } }

  // MARK: - HTTP

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    let mustWait = state.withLock { state -> Bool in
      state.requests.append(request)
      return state.held != nil
    }
    if mustWait {
      await withCheckedContinuation { continuation in
        let waitNow = state.withLock { state -> Bool in
          guard state.held != nil else { return false }
          state.held?.append(continuation)
          return true
        }
        if !waitNow { continuation.resume() }
      }
    }
    let fault = state.withLock { state -> HTTPFault? in
      guard state.online else { return .offline }
      guard
        let index = state.rules.firstIndex(where: { $0.remaining > 0 && $0.match.test(request) })
      else { return nil }
      state.rules[index].remaining -= 1
      let fault = state.rules[index].fault
      if state.rules[index].remaining == 0 { state.rules.remove(at: index) }
      return fault
    }
    switch fault {
    case .offline?: throw .unreachable("test network is offline")
    case .timeout?: throw .timeout
    case .status(let status, let retryAfter)?:
      var response = APIResponse.json(
        status, ErrorResponse(code: "injected", message: "injected by the test"))
      if let retryAfter { response.headers["Retry-After"] = String(retryAfter) }
      return response
    case .loseReply?:
      _ = await deliver(request)
      throw .timeout
    case .holdReply?:
      let response = await deliver(request)
      await withCheckedContinuation { continuation in
        state.withLock { state in state.heldReplies.append(continuation) }
      }
      return response
    case nil:
      return await deliver(request)
    }
  }

  private func deliver(_ request: APIRequest) async -> APIResponse {
    state.withLock { state in state.delivered.append(request) }
    return await service.handle(request)
  }

  // MARK: - Live

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    state.withLock { state in state.connects += 1 }
    guard isOnline else { throw .offline("test network is offline") }
    guard !blocksWebSockets else { throw .rejected(status: 403) }
    let request = APIRequest(.live, headers: headers)
    switch await service.openLive(request) {
    case .refused(let response):
      throw .rejected(status: response.status)
    case .accepted(let subscription):
      let id = state.withLock { state in
        state.nextSocket += 1
        return state.nextSocket
      }
      let socket = TestSocket(
        subscription: subscription, network: self, id: id, executor: executor)
      state.withLock { state in state.sockets[id] = socket }
      socket.startPumping()
      return socket
    }
  }

  func socketClosed(_ id: Int) {
    _ = state.withLock { state in state.sockets.removeValue(forKey: id) }
  }

  /// Applies the pending event faults to one event: what the device receives instead.
  func filter(_ event: String, pending: inout String?) -> [String] {
    state.withLock { state in
      guard let fault = state.eventFaults.first else {
        if let held = pending {
          pending = nil
          return [event, held]
        }
        return [event]
      }
      switch fault {
      case .skip(let n):
        state.eventFaults[0] = .skip(n - 1)
        if n <= 1 { state.eventFaults.removeFirst() }
        return []
      case .duplicate(let n):
        state.eventFaults[0] = .duplicate(n - 1)
        if n <= 1 { state.eventFaults.removeFirst() }
        return [event, event]
      case .swapNextTwo:
        state.eventFaults.removeFirst()
        pending = event
        return []
      }
    }
  }

  private struct HTTPSide: HTTPTransport {
    let network: TestNetwork
    func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
      try await network.send(request)
    }
  }

  private struct LiveSide: LiveTransport {
    let network: TestNetwork
    func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
      try await network.connect(headers: headers)
    }
  }
}

/// A socket between a device and the service, on the world's executor.
final class TestSocket: LiveSocket, Sendable {
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let subscription: LiveSubscription
  private weak let network: TestNetwork?
  private let id: Int
  private let executor: any SerialTaskExecutor
  private let pump = Locked<Task<Void, Never>?>(nil)

  init(
    subscription: LiveSubscription, network: TestNetwork, id: Int,
    executor: any SerialTaskExecutor
  ) {
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
    self.subscription = subscription
    self.network = network
    self.id = id
    self.executor = executor
  }

  func startPumping() {
    let task = executor.spawn {
      var pending: String?
      for await event in self.subscription.events {
        for delivered in self.network?.filter(event, pending: &pending) ?? [event] {
          self.continuation.yield(delivered)
        }
      }
      self.continuation.finish()
      // The server ended it (fell behind, token expired, signed out): closed, as a real
      // socket is once its close frame went.
      self.network?.socketClosed(self.id)
    }
    pump.withLock { $0 = task }
  }

  func send(_ text: String) async throws {
    await subscription.receive(text)
  }

  func close() async {
    drop()
  }

  /// Ends the socket from the device's side: the device sees its stream finish.
  func drop() {
    pump.value?.cancel()
    continuation.finish()
    network?.socketClosed(id)
    let subscription = subscription
    executor.spawn { await subscription.close() }
  }
}
