import ChatAPI
import ChatData
import Support

/// One device's network: decorators on the transports an engine is given (in-process ones in
/// the tests, real ones in the demo) that apply the faults of `NetworkFaults.swift`, with a
/// switch for connectivity. Faults come from two places: rules a test queues (`failNext`,
/// `disturbEvents`, `hold`), and rates drawn from `random` (`rates`: the demo's switch), so a
/// seeded run repeats. As a `NetworkMonitor` it reports each change of the switch.
///
/// `executor` runs the sockets' frame pumps (a test world's, so `settle()` sees them); without
/// one they run as plain tasks.
public final class FaultyNetwork: NetworkMonitor, Sendable {
  private struct State {
    var online = true
    var blocksWebSockets = false
    var rates = FaultRates.none
    var rules: [(match: RequestMatch, fault: HTTPFault, remaining: Int)] = []
    var eventFaults: [EventFault] = []
    var requests: [APIRequest] = []
    var delivered: [APIRequest] = []
    var held: [CheckedContinuation<Void, Never>]? = nil
    var heldReplies: [CheckedContinuation<Void, Never>] = []
    var sockets: [Int: FaultySocket] = [:]
    var nextSocket = 0
    var connects = 0
    var watchers: [Int: @Sendable (Bool) -> Void] = [:]
    var nextWatcher = 0
  }

  private let state = Locked(State())
  let random: any RandomSource
  let clock: any TimeSource
  let executor: (any SerialTaskExecutor)?
  /// Who answers a `.status` fault, in its error message ("injected by the test").
  let injector: String

  public init(
    random: any RandomSource = SystemRandomSource(), clock: any TimeSource = SystemTimeSource(),
    executor: (any SerialTaskExecutor)? = nil, injector: String = "the network"
  ) {
    self.random = random
    self.clock = clock
    self.executor = executor
    self.injector = injector
  }

  /// `base`, through this network.
  public func http(_ base: any HTTPTransport) -> any HTTPTransport {
    FaultyHTTP(base: base, network: self)
  }

  /// `base` (the object store's transport), through this network: the switch and the rates
  /// apply; queued rules are for API requests only.
  public func objects(_ base: any ObjectTransfer) -> any ObjectTransfer {
    FaultyObjects(base: base, network: self)
  }

  /// `base`, through this network.
  public func live(_ base: any LiveTransport) -> any LiveTransport {
    FaultyLive(base: base, network: self)
  }

  // MARK: - Switches

  /// Offline: requests fail as unreachable, sockets cannot open, and open ones drop. Every set
  /// is reported to `reachability()` watchers.
  public var isOnline: Bool {
    get { state.withLock { state in state.online } }
    set {
      let (dropped, watchers) = state.withLock { state in
        state.online = newValue
        return (
          newValue ? [] : Array(state.sockets.values),
          state.watchers.sorted { $0.key < $1.key }.map(\.value)
        )
      }
      for socket in dropped { socket.drop() }
      for watcher in watchers { watcher(newValue) }
    }
  }

  /// The faults drawn per request and frame.
  public var rates: FaultRates {
    get { state.withLock { state in state.rates } }
    set { state.withLock { state in state.rates = newValue } }
  }

  /// The next `count` requests matching `match` get `fault`.
  public func failNext(_ count: Int, with fault: HTTPFault, where match: RequestMatch = .any) {
    state.withLock { state in state.rules.append((match, fault, count)) }
  }

  /// The next events on this device's sockets suffer `fault`.
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

  /// Every API request this device sent, in order (the faulted ones included).
  public var requests: [APIRequest] { state.withLock { state in state.requests } }

  /// The API requests that got through to the server, in the order they left.
  public var delivered: [APIRequest] { state.withLock { state in state.delivered } }

  public var openSockets: Int { state.withLock { state in state.sockets.count } }

  /// A proxy on the way refuses every WebSocket upgrade (403) while HTTP goes through.
  public var blocksWebSockets: Bool {
    get { state.withLock { state in state.blocksWebSockets } }
    set { state.withLock { state in state.blocksWebSockets = newValue } }
  }

  /// How many times this device tried to open a socket.
  public var connectAttempts: Int { state.withLock { state in state.connects } }

  public func reachability() -> AsyncStream<Bool> {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
    let id = state.withLock { state in
      state.nextWatcher += 1
      state.watchers[state.nextWatcher] = { continuation.yield($0) }
      return state.nextWatcher
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { state in _ = state.watchers.removeValue(forKey: id) }
    }
    return stream
  }

  // MARK: - HTTP

  /// One exchange under the faults: `request` is nil for the object store's requests, which
  /// queued rules and the records leave alone.
  func exchange(
    _ request: APIRequest?, _ send: () async throws(TransportError) -> APIResponse
  ) async throws(TransportError) -> APIResponse {
    let mustWait = state.withLock { state -> Bool in
      if let request { state.requests.append(request) }
      return state.held != nil
    }
    if mustWait { await waitForRelease() }
    switch nextFault(for: request) {
    case .offline?:
      throw .unreachable("the network is offline (simulated)")
    case .timeout?:
      throw .timeout
    case .status(let status, let retryAfter)?:
      return HTTPFault.response(status, code: "injected", retryAfter: retryAfter, by: injector)
    case .loseReply?:
      _ = try await deliver(request, send)
      throw .timeout
    case .holdReply?:
      let response = try await deliver(request, send)
      await withCheckedContinuation { continuation in
        state.withLock { state in state.heldReplies.append(continuation) }
      }
      return response
    case .delay(let duration)?:
      // `try?`: a cancelled wait just sends sooner.
      try? await clock.sleep(for: duration)
      let response = try await deliver(request, send)
      if chance(rates.loseReply) { throw .timeout }
      return response
    case nil:
      let response = try await deliver(request, send)
      if chance(rates.loseReply) { throw .timeout }
      return response
    }
  }

  /// The fault for one request: the switch, then the first queued rule that matches, then the
  /// rates.
  private func nextFault(for request: APIRequest?) -> HTTPFault? {
    let (queued, rates) = state.withLock { state -> (HTTPFault?, FaultRates) in
      guard state.online else { return (.offline, state.rates) }
      guard let request,
        let index = state.rules.firstIndex(where: {
          $0.remaining > 0 && $0.match.matches(request)
        })
      else { return (nil, state.rates) }
      state.rules[index].remaining -= 1
      let fault = state.rules[index].fault
      if state.rules[index].remaining == 0 { state.rules.remove(at: index) }
      return (fault, state.rates)
    }
    if let queued { return queued }
    if chance(rates.dropRequest) { return .timeout }
    return rates.delay > .zero ? .delay(rates.delay) : nil
  }

  private func deliver(
    _ request: APIRequest?, _ send: () async throws(TransportError) -> APIResponse
  ) async throws(TransportError) -> APIResponse {
    if let request { state.withLock { state in state.delivered.append(request) } }
    return try await send()
  }

  private func waitForRelease() async {
    await withCheckedContinuation { continuation in
      let waitNow = state.withLock { state -> Bool in
        guard state.held != nil else { return false }
        state.held?.append(continuation)
        return true
      }
      if !waitNow { continuation.resume() }
    }
  }

  func chance(_ rate: Double) -> Bool { rate > 0 && random.unit() < rate }

  // MARK: - Live

  func connect(_ base: any LiveTransport, headers: HeaderFields)
    async throws(LiveConnectError) -> any LiveSocket
  {
    let (online, blocked, rates) = state.withLock { state in
      state.connects += 1
      return (state.online, state.blocksWebSockets, state.rates)
    }
    guard online else { throw .offline("the network is offline (simulated)") }
    guard !blocked else { throw .rejected(status: 403) }
    if chance(rates.dropRequest) { throw .offline("dropped (simulated)") }
    if rates.delay > .zero { try? await clock.sleep(for: rates.delay) }
    let base = try await base.connect(headers: headers)
    let socket = state.withLock { state in
      state.nextSocket += 1
      let socket = FaultySocket(base: base, network: self, id: state.nextSocket)
      state.sockets[state.nextSocket] = socket
      return socket
    }
    socket.startPumping()
    return socket
  }

  func socketClosed(_ id: Int) {
    _ = state.withLock { state in state.sockets.removeValue(forKey: id) }
  }

  /// The fault for the next frame on a socket: the first queued event fault.
  func nextFrameFault() -> FrameFault? {
    state.withLock { state in
      guard let fault = state.eventFaults.first else { return nil }
      switch fault {
      case .skip(let n):
        state.eventFaults[0] = .skip(n - 1)
        if n <= 1 { state.eventFaults.removeFirst() }
        return .lose
      case .duplicate(let n):
        state.eventFaults[0] = .duplicate(n - 1)
        if n <= 1 { state.eventFaults.removeFirst() }
        return .duplicate
      case .swapNextTwo:
        state.eventFaults.removeFirst()
        return .holdForNext
      }
    }
  }

  func spawn(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    if let executor { return executor.spawn(operation) }
    return Task(operation: operation)
  }
}

private struct FaultyHTTP: HTTPTransport {
  let base: any HTTPTransport
  let network: FaultyNetwork

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    try await network.exchange(request) { () async throws(TransportError) in
      try await base.send(request)
    }
  }
}

private struct FaultyObjects: ObjectTransfer {
  let base: any ObjectTransfer
  let network: FaultyNetwork

  func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse {
    try await network.exchange(nil) { () async throws(TransportError) in
      try await base.send(request)
    }
  }
}

private struct FaultyLive: LiveTransport {
  let base: any LiveTransport
  let network: FaultyNetwork

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    try await network.connect(base, headers: headers)
  }
}

/// A socket through the network: the base socket's frames, after the frame faults, on the
/// network's executor. Dropped by the switch, a test, or a drawn fault.
final class FaultySocket: LiveSocket, Sendable {
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let base: any LiveSocket
  private weak let network: FaultyNetwork?
  private let id: Int
  private let pump = Locked<Task<Void, Never>?>(nil)

  init(base: any LiveSocket, network: FaultyNetwork, id: Int) {
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
    self.base = base
    self.network = network
    self.id = id
  }

  func startPumping() {
    guard let network else { return }
    let task = network.spawn { [self] in
      var line = FrameLine()
      for await frame in base.messages {
        let rates = self.network?.rates ?? .none
        if rates.delay > .zero { try? await self.network?.clock.sleep(for: rates.delay) }
        for delivered in line.pass(frame, fault: { self.network?.nextFrameFault() }) {
          continuation.yield(delivered)
        }
        if self.network?.chance(rates.dropSocket) == true {
          drop()
          return
        }
      }
      continuation.finish()
      // The far end closed it (the server ended it: fell behind, token expired, signed out).
      self.network?.socketClosed(id)
    }
    pump.withLock { $0 = task }
  }

  func send(_ text: String) async throws {
    try await base.send(text)
  }

  func close() async {
    drop()
  }

  /// Ends the socket from the device's side: the device sees its stream finish, and the base
  /// socket closes.
  func drop() {
    pump.value?.cancel()
    continuation.finish()
    network?.socketClosed(id)
    let base = base
    _ = network?.spawn { await base.close() } ?? Task { await base.close() }
  }
}
