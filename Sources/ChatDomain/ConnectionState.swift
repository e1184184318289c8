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
