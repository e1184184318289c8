/// The live connection, as a screen shows it.
public enum ConnectionState: Hashable, Sendable {
  /// Not started, or stopped because the app went to the background.
  case idle
  /// No connection: trying again after a backoff. The screen says "Waiting for network…".
  case waitingForNetwork
  case connecting
  case connected
  /// The network refuses the socket (a proxy that blocks WebSockets) but HTTP works: updates
  /// come by long poll, and the socket is tried again every few minutes.
  case polling
  /// The session ended (refresh refused): sign in again.
  case signedOut
}

/// The live connection's state, for the banner of every screen.
public protocol ConnectionStatus: Sendable {
  /// The state now, then on every change.
  func connectionStates() -> AsyncStream<ConnectionState>
}

/// How the engine gets live updates.
public enum LiveUpdates: Sendable, Equatable {
  /// The socket, falling back to long poll on a network that blocks it.
  case automatic
  /// Long poll only (`chat listen --long-poll`; a network known to block WebSockets).
  case longPollOnly
}
