/// The seam to reachability. On Apple platforms an app adapts `NWPathMonitor`; on Linux there is
/// none, and the engine learns that the network is back from its own transports (the socket
/// connects again), so `NoNetworkMonitor` is the default.
public protocol NetworkMonitor: Sendable {
  /// True when the network became reachable, false when it was lost.
  func reachability() -> AsyncStream<Bool>
  /// Whether the network now is metered (`NWPath.isExpensive`): media set to download
  /// "on unmetered networks" waits. False where the platform cannot tell (Linux).
  func isMetered() -> Bool
}

extension NetworkMonitor {
  public func isMetered() -> Bool { false }
}

/// Reports nothing: the engine relies on what its transports observe.
public struct NoNetworkMonitor: NetworkMonitor {
  public init() {}

  public func reachability() -> AsyncStream<Bool> {
    AsyncStream { _ in }
  }
}
