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
public final class TestNetwork: @unchecked Sendable {
  // @unchecked: every mutable field is touched only while holding `lock`.
  private let lock = NSLock()
  let service: ChatService
  let executor: any SerialTaskExecutor
  private var online = true
  private var rules: [(match: RequestMatch, fault: HTTPFault, remaining: Int)] = []
  private var eventFaults: [EventFault] = []
  private var _requests: [APIRequest] = []
  private var held: [CheckedContinuation<Void, Never>]? = nil
  private var heldReplies: [CheckedContinuation<Void, Never>] = []
  private var sockets: [Int: TestSocket] = [:]
  private var nextSocket = 0
  private var connects = 0

  init(service: ChatService, executor: any SerialTaskExecutor) {
    self.service = service
    self.executor = executor
  }

  public var http: any HTTPTransport { HTTPSide(network: self) }
  public var live: any LiveTransport { LiveSide(network: self) }

  // MARK: - Switches

  /// Offline: requests fail as unreachable, sockets cannot open, and open ones drop.
  public var isOnline: Bool {
    get { lock.withLock { online } }
    set {
      let dropped = lock.withLock { () -> [TestSocket] in
        online = newValue
        return newValue ? [] : Array(sockets.values)
      }
      for socket in dropped { socket.drop() }
    }
  }

  /// The next `count` requests matching `match` get `fault`.
  public func failNext(_ count: Int, with fault: HTTPFault, where match: RequestMatch = .any) {
    lock.withLock { rules.append((match, fault, count)) }
  }

  /// The next events on this device's socket suffer `fault`.
  public func disturbEvents(_ fault: EventFault) {
    lock.withLock { eventFaults.append(fault) }
  }

  /// Drops every open socket, as a tunnel would.
  public func dropSockets() {
    for socket in lock.withLock({ Array(sockets.values) }) { socket.drop() }
  }

  /// Requests wait, unanswered, until `release()` (which also releases replies held by
  /// `.holdReply`).
  public func hold() {
    lock.withLock { if held == nil { held = [] } }
  }

  public func release() {
    let waiting = lock.withLock {
      defer {
        held = nil
        heldReplies = []
      }
      return (held ?? []) + heldReplies
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Every request this device sent, in order (the fault-injected ones included).
  public var requests: [APIRequest] { lock.withLock { _requests } }

  public var openSockets: Int { lock.withLock { sockets.count } }

  /// How many times this device tried to open its socket.
  public var connectAttempts: Int { lock.withLock { connects } }

  // MARK: - HTTP

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    let mustWait = lock.withLock { () -> Bool in
      _requests.append(request)
      return held != nil
    }
    if mustWait {
      await withCheckedContinuation { continuation in
        let waitNow = lock.withLock { () -> Bool in
          guard held != nil else { return false }
          held?.append(continuation)
          return true
        }
        if !waitNow { continuation.resume() }
      }
    }
    let fault = lock.withLock { () -> HTTPFault? in
      guard online else { return .offline }
      guard let index = rules.firstIndex(where: { $0.remaining > 0 && $0.match.test(request) })
      else { return nil }
      rules[index].remaining -= 1
      let fault = rules[index].fault
      if rules[index].remaining == 0 { rules.remove(at: index) }
      return fault
    }
    switch fault {
    case .offline?: throw .offline("test network is offline")
    case .timeout?: throw .timeout
    case .status(let status, let retryAfter)?:
      var response = APIResponse.json(
        status, ErrorResponse(code: "injected", message: "injected by the test"))
      if let retryAfter { response.headers["Retry-After"] = String(retryAfter) }
      return response
    case .loseReply?:
      _ = await service.handle(request)
      throw .timeout
    case .holdReply?:
      let response = await service.handle(request)
      await withCheckedContinuation { continuation in
        lock.withLock { heldReplies.append(continuation) }
      }
      return response
    case nil:
      return await service.handle(request)
    }
  }

  // MARK: - Live

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    lock.withLock { connects += 1 }
    guard isOnline else { throw .offline("test network is offline") }
    let request = APIRequest(.live, headers: headers)
    switch await service.openLive(request) {
    case .refused(let response):
      throw .rejected(status: response.status)
    case .accepted(let subscription):
      let id = lock.withLock {
        nextSocket += 1
        return nextSocket
      }
      let socket = TestSocket(
        subscription: subscription, network: self, id: id, executor: executor)
      lock.withLock { sockets[id] = socket }
      socket.startPumping()
      return socket
    }
  }

  func socketClosed(_ id: Int) {
    _ = lock.withLock { sockets.removeValue(forKey: id) }
  }

  /// Applies the pending event faults to one event: what the device receives instead.
  func filter(_ event: String, pending: inout String?) -> [String] {
    lock.withLock {
      guard let fault = eventFaults.first else {
        if let held = pending {
          pending = nil
          return [event, held]
        }
        return [event]
      }
      switch fault {
      case .skip(let n):
        eventFaults[0] = .skip(n - 1)
        if n <= 1 { eventFaults.removeFirst() }
        return []
      case .duplicate(let n):
        eventFaults[0] = .duplicate(n - 1)
        if n <= 1 { eventFaults.removeFirst() }
        return [event, event]
      case .swapNextTwo:
        eventFaults.removeFirst()
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
final class TestSocket: LiveSocket, @unchecked Sendable {
  // @unchecked: `pump` is touched only while holding `lock`.
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let subscription: LiveSubscription
  private weak var network: TestNetwork?
  private let id: Int
  private let executor: any SerialTaskExecutor
  private let lock = NSLock()
  private var pump: Task<Void, Never>?

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
    }
    lock.withLock { pump = task }
  }

  func send(_ text: String) async throws {
    await subscription.receive(text)
  }

  func close() async {
    drop()
  }

  /// Ends the socket from the device's side: the device sees its stream finish.
  func drop() {
    lock.withLock { pump }?.cancel()
    continuation.finish()
    network?.socketClosed(id)
    let subscription = subscription
    executor.spawn { await subscription.close() }
  }
}
