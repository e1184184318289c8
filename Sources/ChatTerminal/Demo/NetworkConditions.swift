import ChatAPI
import ChatData
import Foundation
import Support

/// A network condition a person can switch to, to watch the guarantees at work.
public enum NetworkCondition: String, Sendable, CaseIterable {
  /// The transports as they are.
  case normal
  /// Nothing gets through; the socket drops.
  case offline
  /// Requests fail or lose their reply now and then, and the socket drops now and then.
  case flaky
  /// Every request and every event waits most of a second.
  case slow
}

/// The switch shared by the conditioned transports: decorators on the real ones, not another
/// code path. What goes wrong is drawn from `random`, so a seeded run repeats. As the engine's
/// `NetworkMonitor`, it reports the network coming back when the switch leaves `offline`.
public final class NetworkConditions: NetworkMonitor, Sendable {
  private struct State {
    var current: NetworkCondition = .normal
    var watchers: [Int: @Sendable (NetworkCondition) -> Void] = [:]
    var nextWatcher = 0
  }

  private let state = Locked(State())
  let random: any RandomSource
  let clock: any TimeSource
  /// How often a flaky request fails, and how often one loses its reply.
  public let flakyFailureRate = 0.25
  public let flakyLostReplyRate = 0.15
  /// How often a flaky socket drops after an event.
  public let flakyDropRate = 0.1
  public let slowDelay: Duration = .milliseconds(800)

  public init(
    random: any RandomSource = SystemRandomSource(), clock: any TimeSource = SystemTimeSource()
  ) {
    self.random = random
    self.clock = clock
  }

  public var condition: NetworkCondition {
    get { state.withLock { $0.current } }
    set {
      let watchers = state.withLock { state in
        state.current = newValue
        return state.watchers.sorted { $0.key < $1.key }.map(\.value)
      }
      for watcher in watchers { watcher(newValue) }
    }
  }

  func watch(_ watcher: @escaping @Sendable (NetworkCondition) -> Void) -> Int {
    state.withLock { state in
      state.nextWatcher += 1
      state.watchers[state.nextWatcher] = watcher
      return state.nextWatcher
    }
  }

  func unwatch(_ id: Int) {
    state.withLock { _ = $0.watchers.removeValue(forKey: id) }
  }

  func chance(_ rate: Double) -> Bool { random.unit() < rate }

  public func reachability() -> AsyncStream<Bool> {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
    let id = watch { condition in continuation.yield(condition != .offline) }
    continuation.onTermination = { [weak self] _ in self?.unwatch(id) }
    return stream
  }

  /// The HTTP transport `base`, under these conditions.
  public func http(_ base: any HTTPTransport) -> any HTTPTransport {
    ConditionedHTTPTransport(base: base, conditions: self)
  }

  /// The object-store transport `base`, under these conditions.
  public func objects(_ base: any ObjectTransfer) -> any ObjectTransfer {
    ConditionedObjectTransfer(base: base, conditions: self)
  }

  /// The live transport `base`, under these conditions.
  public func live(_ base: any LiveTransport) -> any LiveTransport {
    ConditionedLiveTransport(base: base, conditions: self)
  }
}

struct ConditionedHTTPTransport: HTTPTransport {
  let base: any HTTPTransport
  let conditions: NetworkConditions

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    try await conditions.exchange { () async throws(TransportError) in
      try await base.send(request)
    }
  }
}

struct ConditionedObjectTransfer: ObjectTransfer {
  let base: any ObjectTransfer
  let conditions: NetworkConditions

  func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse {
    try await conditions.exchange { () async throws(TransportError) in
      try await base.send(request)
    }
  }
}

extension NetworkConditions {
  /// One request and its reply under the condition now: refused offline, late when slow, and
  /// now and then dropped before it leaves or its reply lost when flaky.
  func exchange(_ send: () async throws(TransportError) -> APIResponse)
    async throws(TransportError) -> APIResponse
  {
    switch condition {
    case .normal:
      return try await send()
    case .offline:
      throw .unreachable("offline (simulated)")
    case .slow:
      // `try?`: a cancelled wait just sends sooner.
      try? await clock.sleep(for: slowDelay)
      return try await send()
    case .flaky:
      if chance(flakyFailureRate) {
        throw .unreachable("dropped (simulated)")
      }
      let response = try await send()
      if chance(flakyLostReplyRate) { throw .timeout }
      return response
    }
  }
}

struct ConditionedLiveTransport: LiveTransport {
  let base: any LiveTransport
  let conditions: NetworkConditions

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    switch conditions.condition {
    case .offline:
      throw .offline("offline (simulated)")
    case .flaky where conditions.chance(conditions.flakyFailureRate):
      throw .offline("dropped (simulated)")
    case .slow:
      try? await conditions.clock.sleep(for: conditions.slowDelay)
    default:
      break
    }
    let socket = try await base.connect(headers: headers)
    return ConditionedSocket(base: socket, conditions: conditions)
  }
}

/// A socket that drops when the network goes offline, and now and then when it is flaky.
final class ConditionedSocket: LiveSocket, Sendable {
  let messages: AsyncStream<String>
  private let base: any LiveSocket

  init(base: any LiveSocket, conditions: NetworkConditions) {
    self.base = base
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    messages = stream
    let watcher = conditions.watch { condition in
      if condition == .offline { Task { await base.close() } }
    }
    let forwarding = Task {
      for await message in base.messages {
        if conditions.condition == .slow {
          try? await conditions.clock.sleep(for: conditions.slowDelay)
        }
        continuation.yield(message)
        if conditions.condition == .flaky, conditions.chance(conditions.flakyDropRate) {
          await base.close()
        }
      }
      conditions.unwatch(watcher)
      continuation.finish()
    }
    continuation.onTermination = { _ in forwarding.cancel() }
  }

  func send(_ text: String) async throws {
    try await base.send(text)
  }

  func close() async {
    await base.close()
  }
}
