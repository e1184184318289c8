import Foundation

/// One row of the conversation list.
public struct ConversationSummary: Identifiable, Hashable, Sendable {
  public let id: ConversationID
  public let title: String
  public let memberIDs: [UserID]
  /// The newest message held (or announced by the server), nil when there is none.
  public let lastMessage: Message?
  /// Messages from others above my read number. Computed from the server's numbers, so it is
  /// the same on every device of mine.
  public let unreadCount: Int
  /// The last message's time, or the creation time when there is none: the list's order.
  public let lastActivity: Date

  public init(
    id: ConversationID, title: String, memberIDs: [UserID], lastMessage: Message?,
    unreadCount: Int, lastActivity: Date
  ) {
    self.id = id
    self.title = title
    self.memberIDs = memberIDs
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
    self.lastActivity = lastActivity
  }
}

/// A message found by a local search.
public struct SearchHit: Identifiable, Hashable, Sendable {
  public var id: MessageID { messageID }
  public let messageID: MessageID
  public let conversationID: ConversationID
  public let conversationTitle: String
  public let senderID: UserID
  public let sentAt: Date
  public let sequence: Int?
  /// The text around the match, with the matched words marked.
  public let snippet: Snippet

  public init(
    messageID: MessageID, conversationID: ConversationID, conversationTitle: String,
    senderID: UserID, sentAt: Date, sequence: Int?, snippet: Snippet
  ) {
    self.messageID = messageID
    self.conversationID = conversationID
    self.conversationTitle = conversationTitle
    self.senderID = senderID
    self.sentAt = sentAt
    self.sequence = sequence
    self.snippet = snippet
  }
}

/// Text with some parts marked as matches, so any screen can highlight them its own way.
public struct Snippet: Hashable, Sendable {
  public struct Part: Hashable, Sendable {
    public let text: String
    public let isMatch: Bool

    public init(text: String, isMatch: Bool) {
      self.text = text
      self.isMatch = isMatch
    }
  }

  public let parts: [Part]

  public init(parts: [Part]) { self.parts = parts }

  /// The plain text, without marks.
  public var text: String { parts.map(\.text).joined() }
}

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
