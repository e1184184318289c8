import ChatIdentifiers
import Foundation

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

/// A search of the messages on this device.
public struct LocalSearch: Hashable, Sendable {
  public var hits: [SearchHit]
  /// Some conversation's history here begins after its first message (the retention window
  /// pruned it, or older pages were never fetched): older matches may be on the server only,
  /// so the screen offers "Search older messages" (`searchServer`).
  public var mayBeIncomplete: Bool

  public init(hits: [SearchHit], mayBeIncomplete: Bool) {
    self.hits = hits
    self.mayBeIncomplete = mayBeIncomplete
  }
}

/// A page of the server's search of everything I can see, newest first.
public struct ServerSearch: Hashable, Sendable {
  public var hits: [SearchHit]
  /// Pass as `before` for the next, older page; nil at the end.
  public var nextCursor: String?

  public init(hits: [SearchHit], nextCursor: String?) {
    self.hits = hits
    self.nextCursor = nextCursor
  }
}
