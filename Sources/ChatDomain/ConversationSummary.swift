import ChatIdentifiers
import Foundation

/// Where I stand in a conversation (API.md Part 2, "Groups that change").
public enum Participation: String, Hashable, Sendable {
  case member
  /// Someone with the right removed me: I keep what I saw, read-only.
  case removed
  /// I removed myself.
  case left
}

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
  /// Whether I am still in it; a former member's conversation is read-only.
  public let participation: Participation
  /// Muted (by me, on any of my devices) until then; `Date.distantFuture` for good; nil when
  /// not muted.
  public let mutedUntil: Date?
  /// Unread messages that mention me (API.md Part 3): the list shows "@" by the count.
  public let unreadMentions: Int
  /// Muted, a message that mentions me still pushes (the mute's `mentions` option).
  public let mentionsPushThroughMute: Bool
  /// My read number: the first unread message is the first above it.
  public let readUpTo: Int
  /// Its pinned messages (API.md Part 3), newest pin first: the screen's pinned bar.
  public let pinned: [Pin]
  /// My draft (API.md Part 3), the same on every device of mine: the list shows "Draft: …",
  /// the screen restores it. Nil when there is none (or it was cleared).
  public let draft: MessageDraft?

  public init(
    id: ConversationID, title: String, memberIDs: [UserID], lastMessage: Message?,
    unreadCount: Int, lastActivity: Date, participation: Participation = .member,
    mutedUntil: Date? = nil, unreadMentions: Int = 0, mentionsPushThroughMute: Bool = true,
    readUpTo: Int = 0, pinned: [Pin] = [], draft: MessageDraft? = nil
  ) {
    self.draft = draft
    self.pinned = pinned
    self.readUpTo = readUpTo
    self.unreadMentions = unreadMentions
    self.mentionsPushThroughMute = mentionsPushThroughMute
    self.participation = participation
    self.mutedUntil = mutedUntil
    self.id = id
    self.title = title
    self.memberIDs = memberIDs
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
    self.lastActivity = lastActivity
  }

  /// Whether it is muted at `now`.
  public func isMuted(at now: Date) -> Bool {
    mutedUntil.map { $0 > now } ?? false
  }
}

/// A pinned message of a conversation, as this device knows it: pins of mine not sent yet
/// included, deleted messages left out.
public struct Pin: Hashable, Sendable {
  public let id: MessageID
  /// Where to open the conversation to show it; nil while this device knows only the pin,
  /// not the message (it learns it at the next sync).
  public let sequence: Int?
  /// Its text (a photo's caption, perhaps empty) as this device holds it; nil when it does not
  /// hold the message.
  public let text: String?
  public let senderID: UserID?

  public init(id: MessageID, sequence: Int?, text: String? = nil, senderID: UserID? = nil) {
    self.id = id
    self.sequence = sequence
    self.text = text
    self.senderID = senderID
  }
}

/// A message being written, saved as it is typed: its text and the message it answers.
public struct MessageDraft: Hashable, Sendable {
  public let text: String
  public let replyTo: MessageID?

  public init(text: String, replyTo: MessageID? = nil) {
    self.text = text
    self.replyTo = replyTo
  }
}
