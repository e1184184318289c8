import ChatDomain
import ChatIdentifiers

/// A message of mine whose row turned sent, and when (the engine clock's `uptime()`).
package struct SentMessage: Sendable, Equatable {
  package var id: MessageID
  package var sentAt: Duration
}

/// The client's figures at one moment, readable by the host app.
public struct ClientMetricsSnapshot: Sendable, Equatable {
  public var sendAttempts = 0
  public var sendsAccepted = 0
  /// Messages the server refused (4xx): they turned failed.
  public var sendsRejected = 0
  /// Posts that ended in a temporary error (timeout, offline, 5xx, 429) and will be retried.
  public var temporaryFailures = 0
  public var outboxSize = 0
  public var connections = 0
  public var reconnects = 0
  public var catchUps = 0
  public var catchUpMessages = 0
  public var lastCatchUpSize = 0
  public var gapsDetected = 0
  public var sendToSent = DurationSummary()
  public var timeToOpen = DurationSummary()

  /// Rejected and temporarily failed posts over all posts.
  public var sendFailureRate: Double {
    sendAttempts == 0 ? 0 : Double(sendsRejected + temporaryFailures) / Double(sendAttempts)
  }
}

/// Percentiles of a duration, over the most recent samples.
public struct DurationSummary: Sendable, Equatable {
  public var count = 0
  public var p50: Duration = .zero
  public var p99: Duration = .zero
  public var max: Duration = .zero
}
