/// What an item of a conversation's log is (API.md Part 2, "Items"; Part 3 adds reactions and
/// pins).
public enum ItemKind: String, Codable, Sendable, CaseIterable {
  case message, edit, delete, members, title, reaction, pin
}

/// One entry of a conversation's log, with its own sequence number: a message (Part 1's
/// `Message`), or an edit, delete, member change or title change.
///
/// The fields after `sentAt` are Part 2's. They are nil from a server that does not serve Part 2
/// yet, and are then left out when written, so a Part 1 message keeps exactly Part 1's fields;
/// `effectiveKind` reads a missing kind as `message`.
public struct Item: Codable, Sendable, Equatable {
  public var id: String
  public var clientMessageId: String
  public var conversationId: String
  public var senderId: String
  /// A message's current text (after edits; "" once deleted); an edit's new text; else "".
  public var text: String
  public var sequence: Int
  /// The server's clock at acceptance (RFC 3339), for display only.
  public var sentAt: String
  public var kind: ItemKind?
  /// A message's media; nil once deleted.
  public var media: Media?
  /// When a message was last edited.
  public var editedAt: String?
  /// A message deleted for everyone.
  public var deleted: Bool?
  /// The clientMessageId an edit or delete changes.
  public var target: String?
  /// A members item's changes.
  public var added: [String]?
  public var removed: [String]?
  /// A title item's new title.
  public var title: String?
  /// Part 3, a message's reactions in their current state; nil from a server that does not
  /// serve them yet (then left out when written).
  public var reactions: [ReactionGroup]?
  /// Part 3, the message this one answers, with its quote for the reader (nil: the reader
  /// cannot see it).
  public var replyTo: ReplyTo?
  /// Part 3, the members a message's current text mentions, in the order of first mention.
  public var mentions: [String]?
  /// Part 3, a copy of another message (API.md "Forwarding").
  public var forwarded: Bool?
  /// Part 3, a reaction item's emoji, and whether it took the emoji back.
  public var emoji: String?
  public var remove: Bool?

  public init(
    id: String, clientMessageId: String, conversationId: String, senderId: String, text: String,
    sequence: Int, sentAt: String, kind: ItemKind? = nil, media: Media? = nil,
    editedAt: String? = nil, deleted: Bool? = nil, target: String? = nil,
    added: [String]? = nil, removed: [String]? = nil, title: String? = nil,
    reactions: [ReactionGroup]? = nil, replyTo: ReplyTo? = nil, mentions: [String]? = nil,
    forwarded: Bool? = nil, emoji: String? = nil, remove: Bool? = nil
  ) {
    self.id = id
    self.clientMessageId = clientMessageId
    self.conversationId = conversationId
    self.senderId = senderId
    self.text = text
    self.sequence = sequence
    self.sentAt = sentAt
    self.kind = kind
    self.media = media
    self.editedAt = editedAt
    self.deleted = deleted
    self.target = target
    self.added = added
    self.removed = removed
    self.title = title
    self.reactions = reactions
    self.replyTo = replyTo
    self.mentions = mentions
    self.forwarded = forwarded
    self.emoji = emoji
    self.remove = remove
    self.replyTo = replyTo
  }

  /// The kind, a Part 1 server's items being messages.
  public var effectiveKind: ItemKind { kind ?? .message }

  enum CodingKeys: String, CodingKey {
    case id, clientMessageId, conversationId, senderId, text, sequence, sentAt, kind, media
    case editedAt, deleted, target, added, removed, title, reactions, replyTo, mentions
    case forwarded, emoji, remove
  }

  /// An item without `kind` (Part 1's `Message`) writes Part 1's fields only; an item with one
  /// writes every field of API.md's `Item`, `null` or `[]` where it has no value.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(clientMessageId, forKey: .clientMessageId)
    try container.encode(conversationId, forKey: .conversationId)
    try container.encode(senderId, forKey: .senderId)
    try container.encode(text, forKey: .text)
    try container.encode(sequence, forKey: .sequence)
    try container.encode(sentAt, forKey: .sentAt)
    guard let kind else { return }
    try container.encode(kind, forKey: .kind)
    try Self.encode(media, .media, in: &container)
    try Self.encode(editedAt, .editedAt, in: &container)
    try container.encode(deleted ?? false, forKey: .deleted)
    try Self.encode(target, .target, in: &container)
    try container.encode(added ?? [], forKey: .added)
    try container.encode(removed ?? [], forKey: .removed)
    try Self.encode(title, .title, in: &container)
    // Part 3's fields, once the server serves them (a message that carries `reactions`): a
    // message's four, always present; a reaction's emoji.
    if kind == .message, let reactions {
      try container.encode(reactions, forKey: .reactions)
      try Self.encode(replyTo, .replyTo, in: &container)
      try container.encode(mentions ?? [], forKey: .mentions)
      try container.encode(forwarded ?? false, forKey: .forwarded)
    }
    if kind == .reaction {
      try container.encode(emoji ?? "", forKey: .emoji)
    }
    if kind == .reaction || kind == .pin {
      try container.encode(remove ?? false, forKey: .remove)
    }
  }

  private static func encode<Value: Encodable>(
    _ value: Value?, _ key: CodingKeys, in container: inout KeyedEncodingContainer<CodingKeys>
  ) throws {
    if let value {
      try container.encode(value, forKey: key)
    } else {
      try container.encodeNil(forKey: key)
    }
  }
}

/// What a message answers (API.md Part 3, "Replies"): the target's clientMessageId, and its
/// quote in its current state, null for a reader who cannot see the target.
public struct ReplyTo: Codable, Sendable, Equatable {
  public var clientMessageId: String
  public var quote: Quote?

  public init(clientMessageId: String, quote: Quote?) {
    self.clientMessageId = clientMessageId
    self.quote = quote
  }

  enum CodingKeys: String, CodingKey { case clientMessageId, quote }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(clientMessageId, forKey: .clientMessageId)
    if let quote {
      try container.encode(quote, forKey: .quote)
    } else {
      try container.encodeNil(forKey: .quote)
    }
  }
}

/// `GET /v1/conversations/{id}/messages`: items in ascending sequence order.
public struct ItemPage: Codable, Sendable, Equatable {
  public var items: [Item]
  /// Whether older (`before`, the newest page) or newer (`after`) items exist; with `around`,
  /// either.
  public var hasMore: Bool
  /// Part 3, a page `around` a sequence only: whether visible items lie beyond each end.
  public var hasMoreBefore: Bool?
  public var hasMoreAfter: Bool?

  public init(items: [Item], hasMore: Bool, hasMoreBefore: Bool? = nil, hasMoreAfter: Bool? = nil) {
    self.items = items
    self.hasMore = hasMore
    self.hasMoreBefore = hasMoreBefore
    self.hasMoreAfter = hasMoreAfter
  }
}

/// `POST /v1/conversations/{id}/messages`: a message (`text`, maybe `media`), or with `kind`
/// an edit or delete of `target`, or a reaction (`emoji`, `remove`) to it.
public struct PostItem: Codable, Sendable, Equatable {
  public var clientMessageId: String
  public var text: String?
  public var kind: ItemKind?
  public var target: String?
  public var media: Media?
  public var emoji: String?
  public var remove: Bool?
  /// A message answering another: its clientMessageId.
  public var replyTo: String?
  /// A forward (API.md Part 3): the message whose current text and media the server copies,
  /// instead of text and media.
  public var forwardOf: ForwardOf?

  public init(
    clientMessageId: String, text: String?, kind: ItemKind? = nil, target: String? = nil,
    media: Media? = nil, emoji: String? = nil, remove: Bool? = nil, replyTo: String? = nil,
    forwardOf: ForwardOf? = nil
  ) {
    self.forwardOf = forwardOf
    self.clientMessageId = clientMessageId
    self.text = text
    self.kind = kind
    self.target = target
    self.media = media
    self.emoji = emoji
    self.remove = remove
    self.replyTo = replyTo
  }
}

/// `forwardOf` of a post (API.md Part 3, "Forwarding"): the message forwarded.
public struct ForwardOf: Codable, Sendable, Equatable {
  public var conversationId: String
  public var clientMessageId: String

  public init(conversationId: String, clientMessageId: String) {
    self.conversationId = conversationId
    self.clientMessageId = clientMessageId
  }
}
