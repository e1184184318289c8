/// The live connection, as a screen shows it.
public enum ConnectionState: Hashable, Sendable {
  /// Not started, or stopped because the app went to the background.
  case idle
  /// No connection: trying again after a backoff. The screen says "Waiting for network…".
  case waitingForNetwork
  case connecting
  case connected
  /// The session ended (refresh refused): sign in again.
  case signedOut
}

/// The live connection's state, for the banner of every screen.
public protocol ConnectionStatus: Sendable {
  /// The state now, then on every change.
  func connectionStates() -> AsyncStream<ConnectionState>
}
