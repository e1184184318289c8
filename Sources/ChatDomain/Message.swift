import ChatIdentifiers
import Foundation

/// The app's own description of a message: what the composite repository returns and the
/// screen shows. The server's format (a DTO) never reaches this layer.
public struct Message: Identifiable, Hashable, Sendable {
  /// The client message ID, chosen on the sending device. A bubble keeps this identity from
  /// "sending" to "read", so it never flickers.
  public let id: MessageID
  public let conversationID: ConversationID
  public let senderID: UserID
  public let text: String
  /// The server's time once accepted; the device's clock before. For display only: order is
  /// `sequence` alone.
  public let sentAt: Date
  /// The server's order, nil until the server accepts the message.
  public let sequence: Int?
  /// Sending, sent, failed: my message reaching the server.
  public var send: SendState
  /// How far the others have got. Meaningful only for my own sent messages.
  public var receipt: ReceiptState
  /// When the sender last edited it (the screen says "edited"); nil when never.
  public let editedAt: Date?
  /// Deleted for everyone: a tombstone whose text is gone from this device.
  public let isDeleted: Bool
  /// Not a message but a change to the conversation, made by `senderID` (shown as a line:
  /// "carol added dave"); nil for a message.
  public let event: ConversationEvent?
  /// In a group, for my own sent message: who of the other members read it and got it.
  public let group: GroupReceipt?
  /// A photo or document; nil for text alone (and once deleted).
  public let media: MessageMedia?
  /// The emoji on it, in the order each first came (API.md Part 3); none once deleted.
  public let reactions: [Reaction]
  /// A reply: what it answers, as that message is now.
  public let replyTo: QuotedMessage?
  /// The members it names as `@user` (the server finds them; never parsed here).
  public let mentions: [UserID]
  /// Sent by someone I blocked, in a group (API.md Part 3): the screen shows "Blocked
  /// message" instead of it. Never set in a one-to-one conversation, where the server refuses
  /// their posts.
  public let isFromBlockedSender: Bool
  /// A forward (API.md Part 3): the screen says "Forwarded" above it.
  public let isForwarded: Bool

  public init(
    id: MessageID, conversationID: ConversationID, senderID: UserID, text: String, sentAt: Date,
    sequence: Int?, send: SendState, receipt: ReceiptState, editedAt: Date? = nil,
    isDeleted: Bool = false, event: ConversationEvent? = nil, group: GroupReceipt? = nil,
    media: MessageMedia? = nil, reactions: [Reaction] = [], replyTo: QuotedMessage? = nil,
    mentions: [UserID] = [], isFromBlockedSender: Bool = false, isForwarded: Bool = false
  ) {
    self.isForwarded = isForwarded
    self.isFromBlockedSender = isFromBlockedSender
    self.mentions = mentions
    self.replyTo = replyTo
    self.reactions = reactions
    self.group = group
    self.media = media
    self.editedAt = editedAt
    self.isDeleted = isDeleted
    self.event = event
    self.id = id
    self.conversationID = conversationID
    self.senderID = senderID
    self.text = text
    self.sentAt = sentAt
    self.sequence = sequence
    self.send = send
    self.receipt = receipt
  }
}

/// How far the other members of a group got with my message ("read by 3 of 7"), from each
/// member's receipt numbers. Members whose numbers this device has not heard yet count as not
/// there yet.
public struct GroupReceipt: Hashable, Sendable {
  /// Sorted.
  public let readBy: [UserID]
  /// Sorted; reading implies delivery, so it holds `readBy`.
  public let deliveredTo: [UserID]
  /// The other current members.
  public let memberCount: Int

  public init(readBy: [UserID], deliveredTo: [UserID], memberCount: Int) {
    self.readBy = readBy
    self.deliveredTo = deliveredTo
    self.memberCount = memberCount
  }
}

/// A change to a conversation that shows in it as a line of its own (API.md's members and title
/// items).
public enum ConversationEvent: Hashable, Sendable {
  /// Members came or went; a member who removed themselves left.
  case membersChanged(added: [UserID], removed: [UserID])
  case titleChanged(String)
}

/// Did my message reach the server? Comes from the message row alone.
public enum SendState: Hashable, Sendable {
  /// Saved on the device, not yet accepted: waiting in the outbox, or being posted.
  case sending
  /// Accepted: it has a sequence number.
  case sent
  /// Rejected by the server (a 4xx). Only a tap on retry sends it again, with the same ID.
  case failed(reason: String)
  /// Not sent: it waited in the outbox longer than the engine's stale threshold (24 h by
  /// default) before its first post, so it is not sent silently days late. "Not sent — send
  /// now?": `retry` sends it (same ID, at the back of the queue), `delete` discards it.
  case stale
}

/// How far the others have got with my message. Comes from the receipt numbers, which come from
/// another endpoint and fail separately, hence a state of its own.
public enum ReceiptState: Hashable, Sendable, Comparable {
  /// No receipt numbers were ever loaded for this conversation: a dimmed tick, never
  /// "not delivered", which might be false.
  case unknown
  case notDelivered
  case delivered
  case read
}

/// One emoji on a message: how many put it there, and whether I am one of them.
public struct Reaction: Hashable, Sendable {
  public let emoji: String
  public let count: Int
  public let includesMe: Bool

  public init(emoji: String, count: Int, includesMe: Bool) {
    self.emoji = emoji
    self.count = count
    self.includesMe = includesMe
  }
}

/// What a reply shows of the message it answers (API.md Part 3, "Replies"): that message's
/// current state (an edit shows the new text, a delete says so), or that the reader cannot see
/// it (a member added later: nothing of it leaks).
public struct QuotedMessage: Hashable, Sendable {
  /// The answered message's client message ID (to open the conversation at it).
  public let id: MessageID
  /// Nil when the reader cannot see it.
  public let quote: Quote?

  public struct Quote: Hashable, Sendable {
    public let senderID: UserID
    /// Nil while it is my unsent message.
    public let sequence: Int?
    /// Its first 100 Unicode scalars; "" once deleted.
    public let text: String
    public let mediaKind: MessageMedia.Kind?
    public let isDeleted: Bool

    public init(
      senderID: UserID, sequence: Int?, text: String, mediaKind: MessageMedia.Kind?,
      isDeleted: Bool
    ) {
      self.senderID = senderID
      self.sequence = sequence
      self.text = text
      self.mediaKind = mediaKind
      self.isDeleted = isDeleted
    }
  }

  public init(id: MessageID, quote: Quote?) {
    self.id = id
    self.quote = quote
  }
}
