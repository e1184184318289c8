import ChatDomain
import ChatPresentation
import Foundation

/// The JSON a script reads from `--json`. Field names follow API.md's lowerCamelCase.
struct MessageJSON: Encodable, Equatable {
  let clientMessageId: String
  let conversationId: String
  let sequence: Int?
  let senderId: String
  let text: String
  /// `sending`, `sent` or `failed`.
  let send: String
  /// `unknown`, `notDelivered`, `delivered` or `read`.
  let receipt: String
  let sentAt: String
  let failure: String?
  /// When the sender last edited it; nil when never.
  let editedAt: String?
  /// Deleted for everyone (`text` is then "").
  let deleted: Bool
  /// `message`, or a change to the conversation: `members` (with `added`, `removed`) or
  /// `title` (with `title`); `text` is then "".
  let kind: String
  let added: [String]?
  let removed: [String]?
  let title: String?
  /// My own message in a group: the other members who read it, and who got it.
  let readBy: [String]?
  let deliveredTo: [String]?
  /// A photo or document.
  let media: MediaJSON?
  /// Its reactions, in the order each emoji first came; `mine` when I am among them.
  let reactions: [ReactionJSON]
  /// A reply: what it answers, as that message is now; `quote` null when I cannot see it.
  let replyTo: ReplyJSON?
  /// The members it names.
  let mentions: [String]
  /// Sent by someone I blocked, in a group: the screen shows "Blocked message" (the text is
  /// still here, for a tool).
  let senderBlocked: Bool
  /// A forward of another message (API.md Part 3).
  let forwarded: Bool

  struct ReplyJSON: Encodable, Equatable {
    let clientMessageId: String
    let quote: Nullable<QuoteJSON>
  }

  struct QuoteJSON: Encodable, Equatable {
    let senderId: String
    let sequence: Int?
    let text: String
    let mediaKind: String?
    let deleted: Bool
  }

  struct ReactionJSON: Encodable, Equatable {
    let emoji: String
    let count: Int
    let mine: Bool
  }

  init(_ message: Message) {
    media = message.media.map(MediaJSON.init)
    reactions = message.reactions.map {
      ReactionJSON(emoji: $0.emoji, count: $0.count, mine: $0.includesMe)
    }
    replyTo = message.replyTo.map { quoted in
      ReplyJSON(
        clientMessageId: quoted.id.rawValue,
        quote: Nullable(
          quoted.quote.map {
            QuoteJSON(
              senderId: $0.senderID.rawValue, sequence: $0.sequence, text: $0.text,
              mediaKind: $0.mediaKind?.rawValue, deleted: $0.isDeleted)
          }))
    }
    mentions = message.mentions.map(\.rawValue)
    senderBlocked = message.isFromBlockedSender
    forwarded = message.isForwarded
    readBy = message.group?.readBy.map(\.rawValue)
    deliveredTo = message.group?.deliveredTo.map(\.rawValue)
    switch message.event {
    case nil:
      (kind, added, removed, title) = ("message", nil, nil, nil)
    case .membersChanged(let added, let removed)?:
      (kind, self.added, self.removed, title) = (
        "members", added.map(\.rawValue), removed.map(\.rawValue), nil
      )
    case .titleChanged(let newTitle)?:
      (kind, added, removed, title) = ("title", nil, nil, newTitle)
    }
    editedAt = message.editedAt.map(Self.format)
    deleted = message.isDeleted
    clientMessageId = message.id.rawValue
    conversationId = message.conversationID.rawValue
    sequence = message.sequence
    senderId = message.senderID.rawValue
    text = message.text
    switch message.send {
    case .sending:
      send = "sending"
      failure = nil
    case .sent:
      send = "sent"
      failure = nil
    case .failed(let reason):
      send = "failed"
      failure = reason
    case .stale:
      send = "notSent"
      failure = "waited too long to send: send it now or discard it"
    }
    receipt =
      switch message.receipt {
      case .unknown: "unknown"
      case .notDelivered: "notDelivered"
      case .delivered: "delivered"
      case .read: "read"
      }
    sentAt = Self.format(message.sentAt)
  }

  static func format(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
  }
}

/// A message's photo or document, as `--json` writes it.
struct MediaJSON: Encodable, Equatable {
  /// `image` or `file`.
  let kind: String
  let contentType: String
  let byteCount: Int
  let width: Int?
  let height: Int?
  let fileName: String?
  /// The inline thumbnail's size (images).
  let thumbnailBytes: Int?
  /// Where the full bytes are on this device; nil until downloaded.
  let localPath: String?
  /// My upload while it runs: the bytes the store has.
  let uploadedBytes: Int?

  init(_ media: MessageMedia) {
    kind = media.kind.rawValue
    contentType = media.contentType
    byteCount = media.byteCount
    width = media.width
    height = media.height
    fileName = media.fileName
    thumbnailBytes = media.thumbnail?.count
    localPath = media.localPath
    uploadedBytes = media.uploadedBytes
  }
}

struct ConversationJSON: Encodable, Equatable {
  let id: String
  let title: String
  let memberIds: [String]
  let unreadCount: Int
  let lastMessage: MessageJSON?
  let lastActivity: String
  /// `member`, `removed` or `left`.
  let membership: String
  /// A time, `forever`, or absent when not muted.
  let mutedUntil: String?
  /// Its pinned messages, newest pin first (API.md Part 3).
  let pinned: [PinJSON]
  /// My draft (API.md Part 3): `{ text, replyTo }`, absent when there is none.
  let draft: DraftJSON?

  init(_ summary: ConversationSummary) {
    draft = summary.draft.map { DraftJSON(text: $0.text, replyTo: $0.replyTo?.rawValue) }
    pinned = summary.pinned.map(PinJSON.init)
    membership = summary.participation.rawValue
    mutedUntil = summary.mutedUntil.map {
      $0 == .distantFuture ? "forever" : MessageJSON.format($0)
    }
    id = summary.id.rawValue
    title = summary.title
    memberIds = summary.memberIDs.map(\.rawValue)
    unreadCount = summary.unreadCount
    lastMessage = summary.lastMessage.map(MessageJSON.init)
    lastActivity = MessageJSON.format(summary.lastActivity)
  }
}

struct DraftJSON: Encodable, Equatable {
  let text: String
  let replyTo: String?
}

/// A pinned message: `sequence` absent while this device knows only the pin, `text` and
/// `senderId` absent while it does not hold the message.
struct PinJSON: Encodable, Equatable {
  let clientMessageId: String
  let sequence: Int?
  let text: String?
  let senderId: String?

  init(_ pin: Pin) {
    clientMessageId = pin.id.rawValue
    sequence = pin.sequence
    text = pin.text
    senderId = pin.senderID?.rawValue
  }
}

struct SearchHitJSON: Encodable {
  let clientMessageId: String
  let conversationId: String
  let title: String
  let senderId: String
  let sequence: Int?
  let sentAt: String
  /// The text around the match, matches in [brackets].
  let snippet: String

  init(_ hit: SearchHit) {
    clientMessageId = hit.messageID.rawValue
    conversationId = hit.conversationID.rawValue
    title = hit.conversationTitle
    senderId = hit.senderID.rawValue
    sequence = hit.sequence
    sentAt = MessageJSON.format(hit.sentAt)
    snippet = hit.snippet.parts.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
  }
}

extension MessageMedia {
  /// `[Photo · 1600×1200]`, `[File · report.pdf · 1.2 MB · uploading 40%]`: the screen's label.
  var label: String {
    let row = MediaRow(self)
    return "["
      + ([row.label.terminalSafe] + (row.status.map { [$0] } ?? [])).joined(separator: " · ")
      + "]"
  }
}

extension Message {
  /// `sending`, `sent (418)`, `failed: reason`, with the receipt for my own.
  var statusText: String {
    switch send {
    case .sending: "sending"
    case .failed(let reason): "failed: \(reason.terminalSafe)"
    case .stale: "not sent: it waited too long (send it now, or discard it)"
    case .sent:
      switch receipt {
      case .unknown: "sent"
      case .notDelivered: "sent, not delivered"
      case .delivered: "delivered"
      case .read: "read"
      }
    }
  }
}

/// A field `--json` always writes: its value, or `null` (a plain optional is left out, and a
/// script should not have to tell "absent" from "none").
struct Nullable<Value: Encodable>: Encodable {
  let value: Value?

  init(_ value: Value?) { self.value = value }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let value { try container.encode(value) } else { try container.encodeNil() }
  }
}

extension Nullable: Equatable where Value: Equatable {}
