import ChatData
import ChatWorld
import Support

/// A network condition a person can switch to, to watch the guarantees at work.
public enum NetworkCondition: String, Sendable, CaseIterable {
  /// The transports as they are.
  case normal
  /// Nothing gets through; the socket drops.
  case offline
  /// Requests are lost or lose their reply now and then, and the socket drops now and then.
  case flaky
  /// Every request and every event waits most of a second.
  case slow

  /// The faults drawn under this condition (offline is the network's switch, not a rate).
  var rates: FaultRates {
    switch self {
    case .normal, .offline: .none
    case .flaky: FaultRates(dropRequest: 0.25, loseReply: 0.15, dropSocket: 0.1)
    case .slow: FaultRates(delay: .milliseconds(800))
    }
  }
}

/// The demo's network switch: a condition over ChatWorld's `FaultyNetwork`, the network the
/// tests inject their faults through, decorating the real transports. What goes wrong is drawn
/// from `random`, so a seeded run repeats. As the engine's `NetworkMonitor`, it reports the
/// network coming back when the switch leaves `offline`.
public final class NetworkConditions: NetworkMonitor, Sendable {
  private let network: FaultyNetwork
  private let current = Locked(NetworkCondition.normal)

  public init(
    random: any RandomSource = SystemRandomSource(), clock: any TimeSource = SystemTimeSource()
  ) {
    network = FaultyNetwork(random: random, clock: clock, injector: "the demo")
  }

  public var condition: NetworkCondition {
    get { current.value }
    set {
      current.withLock { $0 = newValue }
      network.rates = newValue.rates
      network.isOnline = newValue != .offline
    }
  }

  public func reachability() -> AsyncStream<Bool> { network.reachability() }

  /// The HTTP transport `base`, under these conditions.
  public func http(_ base: any HTTPTransport) -> any HTTPTransport { network.http(base) }

  /// The object-store transport `base`, under these conditions.
  public func objects(_ base: any ObjectTransfer) -> any ObjectTransfer { network.objects(base) }

  /// The live transport `base`, under these conditions.
  public func live(_ base: any LiveTransport) -> any LiveTransport { network.live(base) }
}
