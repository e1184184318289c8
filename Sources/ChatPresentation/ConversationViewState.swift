import ChatDomain
import ChatIdentifiers
import Foundation

/// Everything the conversation screen shows, as one value (seed 000 §6.2). Rows, banner and
/// history coexist, so they are separate fields, not one status.
public struct ConversationViewState: Equatable, Sendable {
  public var title: String
  public var rows: [MessageRow]
  /// E.g. "Waiting for network…"; nil when online.
  public var banner: String?
  public var history: HistoryState
  /// E.g. "bob is typing…"; nil when nobody is.
  public var typing: String?
  /// The last action that could not be done, said so the user knows what to do.
  public var alert: String?
  /// Set when I am no longer a member ("You were removed"): the conversation is read-only.
  public var readOnly: String?
  /// The first message that was unread when the screen opened: "new messages" shows above it
  /// (where it stays while I read).
  public var firstUnread: MessageID?
  /// Opened at a message (a quote, a search hit, the first unread) rather than the newest:
  /// the screen offers to go to the newest.
  public var isAwayFromNewest: Bool
  /// The pinned bar at the top (API.md Part 3); nil when nothing is pinned.
  public var pinned: PinnedBar?

  public init(
    title: String = "", rows: [MessageRow] = [], banner: String? = nil,
    history: HistoryState = .idle, typing: String? = nil, alert: String? = nil,
    readOnly: String? = nil, firstUnread: MessageID? = nil, isAwayFromNewest: Bool = false,
    pinned: PinnedBar? = nil
  ) {
    self.pinned = pinned
    self.firstUnread = firstUnread
    self.isAwayFromNewest = isAwayFromNewest
    self.readOnly = readOnly
    self.title = title
    self.rows = rows
    self.banner = banner
    self.history = history
    self.typing = typing
    self.alert = alert
  }

  /// My newest message that can still be edited or deleted (what the screen's keys act on).
  public var lastEditable: MessageRow? {
    guard readOnly == nil else { return nil }
    return rows.last { $0.isMine && !$0.isDeleted && !$0.isEvent }
  }

  /// The newest message that still stands, anyone's (what the screen's reaction key acts on).
  public var lastReactable: MessageRow? {
    guard readOnly == nil else { return nil }
    return rows.last { !$0.isDeleted && !$0.isEvent }
  }
}

/// The pinned bar: one pinned message at a time, the newest pin first; tapping it opens the
/// conversation at that message and the bar moves on to the next pin, round again after the
/// oldest (what Telegram and WhatsApp do).
public struct PinnedBar: Equatable, Sendable {
  public let message: MessageID
  /// E.g. "alice: meet at six", "Photo", or "Pinned message" when this device does not hold it.
  public let line: String
  /// Which pin it shows (1 is the newest) and how many there are: "2 of 3".
  public let position: Int
  public let count: Int

  /// The line of a pinned photo or file without a caption.
  public static let mediaText = "Photo or file"
  /// The line of a pinned message this device does not hold yet.
  public static let notHeldText = "Pinned message"

  public init(message: MessageID, line: String, position: Int, count: Int) {
    self.message = message
    self.line = line
    self.position = position
    self.count = count
  }
}

/// One bubble.
public struct MessageRow: Equatable, Identifiable, Sendable {
  /// The client message ID: the same from "sending" to "read", so the bubble never flickers.
  public let id: MessageID
  public let text: String
  public let isMine: Bool
  /// Who wrote it; nil for my own messages.
  public let sender: String?
  /// Already formatted, e.g. "14:02".
  public let time: String
  /// Nil for other people's messages.
  public let ticks: Ticks?
  /// The server's order, nil while sending.
  public let sequence: Int?
  /// The sender changed it since sending: the screen says "edited".
  public let isEdited: Bool
  /// Deleted for everyone: `text` is the tombstone's line, shown dimmed.
  public let isDeleted: Bool
  /// A change to the conversation, not a message: `text` is its line ("carol added dave").
  public let isEvent: Bool
  /// On my own message in a group: "read by 3 of 7" (or "delivered to 5 of 7").
  public let groupReceipt: String?
  /// A photo or document (its caption is `text`, perhaps empty).
  public let media: MediaRow?
  /// Its reactions, each "👍 2", mine marked, in the order each emoji first came.
  public let reactions: [ReactionBadge]
  /// A reply: the line quoting what it answers (tapping it opens the conversation there).
  public let quote: QuoteRow?
  /// It names me (`@me`): highlighted.
  public let mentionsMe: Bool
  /// Sent by someone I blocked, in a group: `text` is "Blocked message", shown dimmed, and
  /// nothing else of it shows.
  public let isBlocked: Bool
  /// A forward: the screen says "Forwarded" above its text.
  public let isForwarded: Bool

  /// What a deleted message shows instead of its text, which is gone from the device.
  public static let deletedText = "This message was deleted"
  /// What a message of someone I blocked shows in a group (API.md Part 3).
  public static let blockedText = "Blocked message"

  public init(
    id: MessageID, text: String, isMine: Bool, sender: String?, time: String, ticks: Ticks?,
    sequence: Int?, isEdited: Bool = false, isDeleted: Bool = false, isEvent: Bool = false,
    groupReceipt: String? = nil, media: MediaRow? = nil, reactions: [ReactionBadge] = [],
    quote: QuoteRow? = nil, mentionsMe: Bool = false, isBlocked: Bool = false,
    isForwarded: Bool = false
  ) {
    self.isForwarded = isForwarded
    self.isBlocked = isBlocked
    self.quote = quote
    self.mentionsMe = mentionsMe
    self.reactions = reactions
    self.media = media
    self.groupReceipt = groupReceipt
    self.isEvent = isEvent
    self.isEdited = isEdited
    self.isDeleted = isDeleted
    self.id = id
    self.text = text
    self.isMine = isMine
    self.sender = sender
    self.time = time
    self.ticks = ticks
    self.sequence = sequence
  }
}

/// One emoji under a bubble: how many, and whether mine is among them (drawn highlighted).
/// What a reply shows of the message it answers: "bob: lunch at noon?", "You: Photo", "bob: This
/// message was deleted", or, for a reader who cannot see it, no author and a line saying so.
public struct QuoteRow: Equatable, Sendable {
  /// The answered message (to open the conversation at it).
  public let target: MessageID
  /// "bob", "You"; nil when the reader cannot see it.
  public let author: String?
  public let text: String
  /// Its sequence, to open the conversation at it; nil while unsent, or when unseen.
  public let sequence: Int?

  /// What a quote of a message the reader cannot see says.
  public static let hiddenText = "A message from before you joined"

  public init(target: MessageID, author: String?, text: String, sequence: Int? = nil) {
    self.sequence = sequence
    self.target = target
    self.author = author
    self.text = text
  }

  /// "bob: lunch at noon?".
  public var line: String { author.map { "\($0): \(text)" } ?? text }
}

public struct ReactionBadge: Equatable, Sendable {
  public let emoji: String
  public let count: Int
  public let isMine: Bool

  public init(emoji: String, count: Int, isMine: Bool) {
    self.emoji = emoji
    self.count = count
    self.isMine = isMine
  }

  /// "👍 2".
  public var label: String { "\(emoji) \(count)" }
}

/// The status mark on my own bubble.
public enum Ticks: Equatable, Sendable {
  /// Sending: a clock.
  case clock
  /// Refused: red, "tap to retry".
  case failed
  /// Waited too long to go: "not sent — send now?", with send and discard.
  case notSent
  /// Sent, receipts unknown: a dimmed tick, never "not delivered".
  case dimmed
  /// Sent, not yet delivered: one tick.
  case one
  /// Delivered: two ticks.
  case two
  /// Read.
  case read

  /// Sending state first: a message not yet sent has no receipt.
  public init(send: SendState, receipt: ReceiptState) {
    switch (send, receipt) {
    case (.sending, _): self = .clock
    case (.failed, _): self = .failed
    case (.stale, _): self = .notSent
    case (.sent, .unknown): self = .dimmed
    case (.sent, .notDelivered): self = .one
    case (.sent, .delivered): self = .two
    case (.sent, .read): self = .read
    }
  }
}

/// Loading older messages.
public enum HistoryState: Equatable, Sendable {
  case idle
  case loading
  case failed(String)
  /// The first message is on screen: nothing older exists.
  case beginning
}
