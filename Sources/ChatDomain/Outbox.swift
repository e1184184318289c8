import ChatIdentifiers
import Foundation

/// One row of the outbox as the user sees it (`chat outbox`, the "3 messages waiting" list).
public struct OutboxEntry: Identifiable, Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable {
    case message
    /// My edit of a message, queued behind it.
    case edit
    /// My delete of a message, queued behind it.
    case delete
    /// My reaction to a message: `text` is the emoji, with "−" before it when I take it back.
    case reaction
    /// My pin of a message: `text` is `OutboxEntry.pinMark`, with "−" before it for an unpin.
    case pin
  }

  /// What a pin shows as in the outbox, and where the screen draws the pinned bar.
  public static let pinMark = "📌"

  public enum State: Hashable, Sendable {
    /// Queued, or being posted: the outbox sends it by itself.
    case waiting
    /// Held: it waited longer than the stale threshold before its first post. Send now
    /// (`retry`) or discard it.
    case notSent
    /// Refused by the server; only a retry sends it again.
    case failed(reason: String)
  }

  public let id: MessageID
  public let conversationID: ConversationID
  public let conversationTitle: String
  public let kind: Kind
  /// The message's text (empty for a delete, or a photo without caption).
  public let text: String
  public let state: State
  /// When it was written on this device.
  public let createdAt: Date
  /// Posts that did not end in an answer (timeouts, offline, 5xx, 429).
  public let attempts: Int
  /// When the outbox tries again, if it is waiting out a backoff.
  public let nextAttempt: Date?
  /// Why the last attempt did not end (e.g. `offline`, `timeout`, `status_503`).
  public let lastError: String?
  /// Bytes of its photo or document the store has not confirmed yet; nil: no media, or
  /// uploaded.
  public let mediaBytesLeft: Int?

  public init(
    id: MessageID, conversationID: ConversationID, conversationTitle: String, kind: Kind,
    text: String, state: State, createdAt: Date, attempts: Int, nextAttempt: Date?,
    lastError: String?, mediaBytesLeft: Int?
  ) {
    self.id = id
    self.conversationID = conversationID
    self.conversationTitle = conversationTitle
    self.kind = kind
    self.text = text
    self.state = state
    self.createdAt = createdAt
    self.attempts = attempts
    self.nextAttempt = nextAttempt
    self.lastError = lastError
    self.mediaBytesLeft = mediaBytesLeft
  }
}

/// The outbox you can see: what waits to be sent, held or refused, and the user's choices.
public protocol OutboxRepository: Sendable {
  /// Every row of mine not yet on the server, in the order they go out (held and refused ones
  /// last), re-sent on every change. Starts with what the database holds.
  func entries() -> AsyncStream<[OutboxEntry]>

  /// Sends a refused or held message now (same ID, at the back of its conversation's queue);
  /// with nil, every one of them, and every wait of the outbox ends now.
  func retry(_ id: MessageID?) async

  /// Discards a message that is not on the server: it never will be. Throws for a row that is
  /// not in the outbox (sent meanwhile, or unknown).
  func discard(_ id: MessageID) async throws(ChatError)
}
