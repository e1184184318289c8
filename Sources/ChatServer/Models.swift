/// A stored message: the `Message` of API.md.
struct StoredMessage: Sendable, Equatable {
  var id: String
  var clientMessageId: String
  var conversationId: String
  var senderId: String
  var text: String
  var sequence: Int
  var sentAt: Timestamp

  var json: JSON {
    .object([
      "id": .string(id),
      "clientMessageId": .string(clientMessageId),
      "conversationId": .string(conversationId),
      "senderId": .string(senderId),
      "text": .string(text),
      "sequence": .integer(sequence),
      "sentAt": .string(sentAt.rfc3339),
    ])
  }
}

/// A conversation as one member sees it: an item of `GET /v1/conversations`.
struct ConversationItem: Sendable, Equatable {
  var id: String
  var title: String
  /// Sorted.
  var memberIds: [String]
  var lastSequence: Int
  /// The viewing member's own read number.
  var readUpTo: Int
  var lastMessage: StoredMessage?
  var createdAt: Timestamp

  /// The list item, `lastMessage` included.
  var json: JSON {
    .object([
      "id": .string(id),
      "title": .string(title),
      "memberIds": .array(memberIds.map(JSON.string)),
      "lastSequence": .integer(lastSequence),
      "readUpTo": .integer(readUpTo),
      "lastMessage": lastMessage?.json ?? .null,
      "createdAt": .string(createdAt.rfc3339),
    ])
  }

  /// The `201` answer to `POST /v1/conversations`: the list item without `lastMessage`, as
  /// API.md lists it.
  var createdJSON: JSON {
    guard case .object(var object) = json else { return json }
    object.members.removeAll { $0.key == "lastMessage" }
    return .object(object)
  }
}

/// One member's receipt numbers.
struct MemberReceipt: Sendable, Equatable {
  var userId: String
  var deliveredUpTo: Int
  var readUpTo: Int

  var json: JSON {
    .object([
      "userId": .string(userId),
      "deliveredUpTo": .integer(deliveredUpTo),
      "readUpTo": .integer(readUpTo),
    ])
  }
}

/// Every member's numbers in a conversation.
struct ReceiptsSnapshot: Sendable, Equatable {
  var lastSequence: Int
  /// Sorted by user id.
  var members: [MemberReceipt]

  /// `GET …/receipts` for `viewer`: the top-level numbers are the lowest over the other
  /// members (a message is read when everyone else has read it), or `lastSequence` alone.
  func json(for viewer: String) -> JSON {
    let others = members.filter { $0.userId != viewer }
    return .object([
      "deliveredUpTo": .integer(others.map(\.deliveredUpTo).min() ?? lastSequence),
      "readUpTo": .integer(others.map(\.readUpTo).min() ?? lastSequence),
      "members": .array(members.map(\.json)),
    ])
  }
}

/// A page of messages, ascending by sequence.
struct MessagePage: Sendable, Equatable {
  var items: [StoredMessage]
  var hasMore: Bool

  var json: JSON {
    .object(["items": .array(items.map(\.json)), "hasMore": .bool(hasMore)])
  }
}

/// Which messages `GET …/messages` asks for, as parsed (ranges not yet checked: API.md puts
/// the membership 404 before the range 422).
struct MessageQuery: Sendable, Equatable {
  var before: Int?
  var after: Int?
  var limit: Int

  /// Throws the 422 of API.md: `limit` outside 1...200, both `before` and `after`, or a
  /// negative sequence.
  func validate() throws(APIError) {
    guard Limits.pageSizes.contains(limit) else {
      throw .invalid("limit must be between 1 and 200.")
    }
    if before != nil && after != nil { throw .invalid("Use before or after, not both.") }
    if let before, before < 0 { throw .invalid("before must not be negative.") }
    if let after, after < 0 { throw .invalid("after must not be negative.") }
  }
}

/// Which receipt number a `POST` raises.
enum ReceiptKind: String, Sendable {
  case delivered
  case read
}
