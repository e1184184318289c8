/// One member's "up to" numbers.
public struct MemberReceipts: Codable, Sendable, Equatable {
  public var userId: String
  public var deliveredUpTo: Int
  public var readUpTo: Int

  public init(userId: String, deliveredUpTo: Int, readUpTo: Int) {
    self.userId = userId
    self.deliveredUpTo = deliveredUpTo
    self.readUpTo = readUpTo
  }
}

/// `GET /v1/conversations/{id}/receipts`: the caller's ticks (the lowest over the other
/// members) and every member's numbers.
public struct ReceiptsResponse: Codable, Sendable, Equatable {
  public var deliveredUpTo: Int
  public var readUpTo: Int
  public var members: [MemberReceipts]

  public init(deliveredUpTo: Int, readUpTo: Int, members: [MemberReceipts]) {
    self.deliveredUpTo = deliveredUpTo
    self.readUpTo = readUpTo
    self.members = members
  }
}

/// `POST /v1/conversations/{id}/delivered` and `…/read`.
public struct UpTo: Codable, Sendable, Equatable {
  public var upToSequence: Int

  public init(upToSequence: Int) {
    self.upToSequence = upToSequence
  }
}
