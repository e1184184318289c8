/// A server → client frame of `GET /v1/live`, by its `type`.
public enum LiveEvent: Codable, Sendable, Equatable {
  /// An item of any kind (Part 1: a message), to every member device, the sender's included.
  case message(conversationId: String, message: Item)
  /// One member's numbers rose (Part 1).
  case receipt(conversationId: String, MemberReceipts)
  /// Every member whose numbers changed in a 250 ms window (Part 2's coalesced event).
  case receipts(conversationId: String, members: [MemberReceipts])
  case typing(conversationId: String, userId: String)
  /// Created, or membership, title or mute changed.
  case conversation(ConversationItem)
  /// Part 3: the user's whole block list changed (to its own sockets only).
  case blocked(userIds: [String])
  /// A type this version does not know: ignored, so the server can add events.
  case unknown(type: String)

  enum CodingKeys: String, CodingKey {
    case type, conversationId, message, userId, deliveredUpTo, readUpTo, members, conversation
    case userIds
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let type = try container.decode(String.self, forKey: .type)
    switch type {
    case "message":
      self = .message(
        conversationId: try container.decode(String.self, forKey: .conversationId),
        message: try container.decode(Item.self, forKey: .message))
    case "receipt":
      self = .receipt(
        conversationId: try container.decode(String.self, forKey: .conversationId),
        MemberReceipts(
          userId: try container.decode(String.self, forKey: .userId),
          deliveredUpTo: try container.decode(Int.self, forKey: .deliveredUpTo),
          readUpTo: try container.decode(Int.self, forKey: .readUpTo)))
    case "receipts":
      self = .receipts(
        conversationId: try container.decode(String.self, forKey: .conversationId),
        members: try container.decode([MemberReceipts].self, forKey: .members))
    case "typing":
      self = .typing(
        conversationId: try container.decode(String.self, forKey: .conversationId),
        userId: try container.decode(String.self, forKey: .userId))
    case "conversation":
      self = .conversation(try container.decode(ConversationItem.self, forKey: .conversation))
    case "blocked":
      self = .blocked(userIds: try container.decode([String].self, forKey: .userIds))
    default:
      self = .unknown(type: type)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .message(let conversation, let message):
      try container.encode("message", forKey: .type)
      try container.encode(conversation, forKey: .conversationId)
      try container.encode(message, forKey: .message)
    case .receipt(let conversation, let receipts):
      try container.encode("receipt", forKey: .type)
      try container.encode(conversation, forKey: .conversationId)
      try container.encode(receipts.userId, forKey: .userId)
      try container.encode(receipts.deliveredUpTo, forKey: .deliveredUpTo)
      try container.encode(receipts.readUpTo, forKey: .readUpTo)
    case .receipts(let conversation, let members):
      try container.encode("receipts", forKey: .type)
      try container.encode(conversation, forKey: .conversationId)
      try container.encode(members, forKey: .members)
    case .typing(let conversation, let user):
      try container.encode("typing", forKey: .type)
      try container.encode(conversation, forKey: .conversationId)
      try container.encode(user, forKey: .userId)
    case .conversation(let conversation):
      try container.encode("conversation", forKey: .type)
      try container.encode(conversation, forKey: .conversation)
    case .blocked(let users):
      try container.encode("blocked", forKey: .type)
      try container.encode(users, forKey: .userIds)
    case .unknown(let type):
      try container.encode(type, forKey: .type)
    }
  }

  /// The frame's text.
  public var text: String { APICoding.json(self).text }
}

/// A client → server frame of `GET /v1/live`: the only one API.md defines is typing.
public struct ClientFrame: Codable, Sendable, Equatable {
  public var type: String
  public var conversationId: String

  public init(type: String, conversationId: String) {
    self.type = type
    self.conversationId = conversationId
  }

  /// I am typing in `conversationId` (relayed to the other members, never stored).
  public static func typing(in conversationId: String) -> ClientFrame {
    ClientFrame(type: "typing", conversationId: conversationId)
  }

  public var text: String { APICoding.json(self).text }
}
