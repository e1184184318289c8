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
