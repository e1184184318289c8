/// A conversation as one member sees it: an item of `GET /v1/conversations`, of `/v1/sync`, and
/// of the live `conversation` event.
///
/// `lastMessage` is always written (`null` when there is none), except in the `201` answer to
/// `POST /v1/conversations`, which API.md lists without it (`CreatedConversation`). The fields
/// after `createdAt` are Part 2's, nil (and left out) from a server that does not serve them.
public struct ConversationItem: Codable, Sendable, Equatable {
  public var id: String
  public var title: String
  /// Sorted.
  public var memberIds: [String]
  public var lastSequence: Int
  /// The caller's own read number.
  public var readUpTo: Int
  /// The newest item of kind `message`, in its current state.
  public var lastMessage: Item?
  public var createdAt: String
  /// The caller's visible ranges, inclusive; an open range (nil end) while still a member.
  public var visible: [VisibleRange]?
  public var membership: Membership?
  public var createdBy: String?
  /// A time (RFC 3339), `forever`, or nil when not muted.
  public var mutedUntil: String?
  /// Part 3: the caller's unread messages that mention it and are not deleted; nil from a
  /// server that does not count them.
  public var unreadMentions: Int?
  /// Part 3: what the caller's mute does to mentions; nil from a server without the option.
  public var mutedMentions: MentionPushes?
  /// Part 3: the pinned messages the caller can see, newest pin first; nil from a server
  /// without pins.
  public var pinned: [PinnedMessage]?
  /// Part 3: the caller's own draft, nil before its first save (and from a server without
  /// drafts).
  public var draft: Draft?

  public init(
    id: String, title: String, memberIds: [String], lastSequence: Int, readUpTo: Int,
    lastMessage: Item?, createdAt: String, visible: [VisibleRange]? = nil,
    membership: Membership? = nil, createdBy: String? = nil, mutedUntil: String? = nil,
    unreadMentions: Int? = nil, mutedMentions: MentionPushes? = nil,
    pinned: [PinnedMessage]? = nil, draft: Draft? = nil
  ) {
    self.draft = draft
    self.id = id
    self.title = title
    self.memberIds = memberIds
    self.lastSequence = lastSequence
    self.readUpTo = readUpTo
    self.lastMessage = lastMessage
    self.createdAt = createdAt
    self.visible = visible
    self.membership = membership
    self.createdBy = createdBy
    self.mutedUntil = mutedUntil
    self.unreadMentions = unreadMentions
    self.mutedMentions = mutedMentions
    self.pinned = pinned
  }

  enum CodingKeys: String, CodingKey {
    case id, title, memberIds, lastSequence, readUpTo, lastMessage, createdAt, visible
    case membership, createdBy, mutedUntil, unreadMentions, mutedMentions, pinned, draft
  }

  public func encode(to encoder: any Encoder) throws {
    try encode(to: encoder, includingLastMessage: true)
  }

  func encode(to encoder: any Encoder, includingLastMessage: Bool) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(title, forKey: .title)
    try container.encode(memberIds, forKey: .memberIds)
    try container.encode(lastSequence, forKey: .lastSequence)
    try container.encode(readUpTo, forKey: .readUpTo)
    if includingLastMessage {
      try container.encode(lastMessage, forKey: .lastMessage)
    }
    try container.encode(createdAt, forKey: .createdAt)
    try container.encodeIfPresent(visible, forKey: .visible)
    try container.encodeIfPresent(membership, forKey: .membership)
    try container.encodeIfPresent(createdBy, forKey: .createdBy)
    try container.encodeIfPresent(mutedUntil, forKey: .mutedUntil)
    try container.encodeIfPresent(unreadMentions, forKey: .unreadMentions)
    try container.encodeIfPresent(mutedMentions, forKey: .mutedMentions)
    try container.encodeIfPresent(pinned, forKey: .pinned)
    // A server with pins has drafts too: the caller's, or null before its first save.
    if pinned != nil { try container.encode(draft, forKey: .draft) }
  }
}

/// A pinned message of a conversation item's `pinned` (API.md Part 3, "Pins").
public struct PinnedMessage: Codable, Sendable, Equatable {
  public var clientMessageId: String
  public var sequence: Int

  public init(clientMessageId: String, sequence: Int) {
    self.clientMessageId = clientMessageId
    self.sequence = sequence
  }
}

/// The `201` answer to `POST /v1/conversations`: the conversation item without `lastMessage`.
public struct CreatedConversation: Codable, Sendable, Equatable {
  public var conversation: ConversationItem

  public init(_ conversation: ConversationItem) {
    self.conversation = conversation
  }

  public init(from decoder: any Decoder) throws {
    conversation = try ConversationItem(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try conversation.encode(to: encoder, includingLastMessage: false)
  }
}

/// An inclusive range of sequence numbers a member can see: `[1, 40]`, or `[57, null]` while
/// still a member.
public struct VisibleRange: Codable, Sendable, Equatable {
  public var first: Int
  public var last: Int?

  public init(first: Int, last: Int?) {
    self.first = first
    self.last = last
  }

  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    first = try container.decode(Int.self)
    last = try container.decodeNil() ? nil : try container.decode(Int.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(first)
    if let last { try container.encode(last) } else { try container.encodeNil() }
  }

  public func contains(_ sequence: Int) -> Bool {
    sequence >= first && last.map { sequence <= $0 } ?? true
  }
}

/// Where the caller stands in a conversation.
public enum Membership: String, Codable, Sendable {
  case member, removed, left
}

/// `GET /v1/conversations`.
public struct ConversationList: Codable, Sendable, Equatable {
  public var items: [ConversationItem]

  public init(items: [ConversationItem]) {
    self.items = items
  }
}

/// `GET /v1/sync?cursor=`: the conversations changed since the cursor, and the next cursor.
public struct SyncResponse: Codable, Sendable, Equatable {
  public var conversations: [ConversationItem]
  public var cursor: String
  /// Part 3: the caller's whole block list, when it changed since the cursor; absent otherwise.
  public var blocked: [String]?

  public init(conversations: [ConversationItem], cursor: String, blocked: [String]? = nil) {
    self.conversations = conversations
    self.cursor = cursor
    self.blocked = blocked
  }
}

/// `GET /v1/users/me/blocked` (Part 3).
public struct BlockedUsers: Codable, Sendable, Equatable {
  public var userIds: [String]

  public init(userIds: [String]) {
    self.userIds = userIds
  }
}

/// `POST /v1/conversations`.
public struct CreateConversation: Codable, Sendable, Equatable {
  public var title: String?
  public var memberIds: [String]

  public init(title: String?, memberIds: [String]) {
    self.title = title
    self.memberIds = memberIds
  }
}

/// `POST /v1/conversations/{id}/members`.
public struct ChangeMembers: Codable, Sendable, Equatable {
  public var clientMessageId: String
  public var add: [String]?
  public var remove: [String]?

  public init(clientMessageId: String, add: [String]?, remove: [String]?) {
    self.clientMessageId = clientMessageId
    self.add = add
    self.remove = remove
  }
}

/// `PATCH /v1/conversations/{id}`.
public struct ChangeTitle: Codable, Sendable, Equatable {
  public var clientMessageId: String
  public var title: String

  public init(clientMessageId: String, title: String) {
    self.clientMessageId = clientMessageId
    self.title = title
  }
}

/// `PUT /v1/conversations/{id}/mute`: `until` a time (RFC 3339), `forever`, or nil to unmute;
/// Part 3's `mentions`, whether a muted conversation still pushes a mention (`push` when left
/// out).
public struct Mute: Codable, Sendable, Equatable {
  public var until: String?
  public var mentions: MentionPushes?

  public init(until: String?, mentions: MentionPushes? = nil) {
    self.until = until
    self.mentions = mentions
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(until, forKey: .until)
    try container.encodeIfPresent(mentions, forKey: .mentions)
  }

  /// The value that mutes for good.
  public static let forever = "forever"
}

/// Whether a muted conversation still pushes a message that mentions the user (API.md Part 3).
public enum MentionPushes: String, Codable, Sendable {
  case push, silent
}
