import ChatAPI
import SQLite

/// What a receipt post did.
struct ReceiptOutcome: Sendable {
  /// The poster's numbers after the post; nil when they did not rise.
  var raised: MemberReceipts?
  /// The conversation's members, sorted: who hears of a rise.
  var memberIds: [String]
}

extension ServerStore {
  /// Raises `user`'s delivered (and for `.read`, read) number to `sequence`, never lowering
  /// either; reading implies delivery. Checks membership (404), then the range
  /// `0...lastSequence` (422).
  func raiseReceipt(
    _ kind: ReceiptKind, in conversation: String, by user: String, upTo sequence: Int
  ) async throws(StoreError) -> ReceiptOutcome {
    try await writing { db in
      try db.lockConversation(conversation)
      let members = try Self.memberIds(db, of: conversation, actingAs: user)
      let lastSequence =
        try db.scalarInt("SELECT last_sequence FROM conversations WHERE id = ?", conversation) ?? 0
      guard (0...lastSequence).contains(sequence) else {
        throw StoreError.invalid("upToSequence must be between 0 and the last sequence.")
      }
      guard
        let current = try db.query(
          """
          SELECT delivered_up_to, read_up_to FROM members
          WHERE conversation_id = ? AND user_id = ?
          """, conversation, user,
          map: { MemberReceipts(userId: user, deliveredUpTo: $0.int(0), readUpTo: $0.int(1)) }
        ).first
      else { throw StoreError.notAMember }
      var raised = current
      raised.deliveredUpTo = max(current.deliveredUpTo, sequence)
      if kind == .read { raised.readUpTo = max(current.readUpTo, sequence) }
      guard raised != current else { return ReceiptOutcome(raised: nil, memberIds: members) }
      try db.run(
        """
        UPDATE members SET delivered_up_to = ?, read_up_to = ?
        WHERE conversation_id = ? AND user_id = ?
        """, raised.deliveredUpTo, raised.readUpTo, conversation, user)
      try db.run(
        "UPDATE conversations SET \(db.dialect.markChanged) WHERE id = ?",
        conversation)
      return ReceiptOutcome(raised: raised, memberIds: members)
    }
  }

  /// Every current member's numbers, for a current member (a former member: 403).
  func receipts(in conversation: String, visibleTo user: String) async throws(StoreError)
    -> ReceiptsSnapshot
  {
    try await reading { db in
      _ = try Self.memberIds(db, of: conversation, actingAs: user)
      let members = try db.query(
        """
        SELECT user_id, delivered_up_to, read_up_to FROM members
        WHERE conversation_id = ? AND membership = 'member' ORDER BY user_id
        """, conversation
      ) { MemberReceipts(userId: $0.string(0), deliveredUpTo: $0.int(1), readUpTo: $0.int(2)) }
      let lastSequence =
        try db.scalarInt(
          "SELECT last_sequence FROM conversations WHERE id = ?", conversation) ?? 0
      return ReceiptsSnapshot(lastSequence: lastSequence, members: members)
    }
  }
}
