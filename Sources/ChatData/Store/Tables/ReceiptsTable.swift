import ChatDomain
import ChatIdentifiers
import SQLite

/// The receipt numbers (API.md, Receipts): `receipts`, my ticks in each conversation (the
/// lowest numbers over the other members), and `member_receipts`, each member's delivered and
/// read numbers. The records are `ReceiptsRecord` and `MemberReceiptRecord`.
///
/// Numbers only go up: each is raised with `max`, so a late or repeated answer never moves a
/// tick back. None loaded yet is nil, never zero: the screen shows unknown, not "not
/// delivered".
enum ReceiptsTable {
  /// Saves the receipts endpoint's answer: the caller's ticks and every member's numbers.
  static func save(
    _ receipts: ReceiptsRecord, members: [MemberReceiptRecord], in conversation: ConversationID,
    me: UserID, tx: StoreTransaction
  ) throws {
    try raiseTicks(
      conversation, delivered: receipts.deliveredUpTo, read: receipts.readUpTo, db: tx.db)
    for member in members {
      try saveMember(member, in: conversation, me: me, db: tx.db)
    }
    tx.touch(conversation)
  }

  /// Saves one member's numbers (a socket receipt event), and recomputes my ticks when every
  /// other member's numbers are known.
  static func saveMemberReceipt(
    _ member: MemberReceiptRecord, in conversation: ConversationID, me: UserID,
    tx: StoreTransaction
  ) throws {
    try saveMember(member, in: conversation, me: me, db: tx.db)
    if member.userID != me { try recomputeTicks(conversation, me: me, db: tx.db) }
    tx.touch(conversation)
  }

  private static func saveMember(
    _ member: MemberReceiptRecord, in conversation: ConversationID, me: UserID, db: Database
  ) throws {
    try db.run(
      """
      INSERT INTO member_receipts (conversation_id, user_id, delivered_up_to, read_up_to)
      VALUES (?, ?, ?, ?)
      ON CONFLICT (conversation_id, user_id) DO UPDATE SET
        delivered_up_to = max(delivered_up_to, excluded.delivered_up_to),
        read_up_to = max(read_up_to, excluded.read_up_to)
      """, conversation.rawValue, member.userID.rawValue, member.deliveredUpTo, member.readUpTo)
    if member.userID == me {
      // My own numbers, raised on another device of mine: the unread count follows.
      try db.run(
        """
        UPDATE conversations SET read_up_to = max(read_up_to, ?),
          read_acknowledged = max(read_acknowledged, ?)
        WHERE id = ?
        """, member.readUpTo, member.readUpTo, conversation.rawValue)
    }
  }

  /// My ticks are the lowest numbers over the other members (API.md, Receipts).
  private static func recomputeTicks(_ conversation: ConversationID, me: UserID, db: Database)
    throws
  {
    guard
      let members = try db.query(
        "SELECT member_ids FROM conversations WHERE id = ?", conversation.rawValue,
        map: { $0.string(0).split(separator: ",").map(String.init) }
      ).first
    else { return }
    let others = members.filter { $0 != me.rawValue }
    guard !others.isEmpty else { return }
    let known = try db.query(
      "SELECT user_id, delivered_up_to, read_up_to FROM member_receipts WHERE conversation_id = ?",
      conversation.rawValue
    ) { ($0.string(0), $0.int(1), $0.int(2)) }
    let numbers = known.filter { others.contains($0.0) }
    guard numbers.count == others.count else { return }
    let delivered = numbers.map(\.1).min() ?? 0
    let read = numbers.map(\.2).min() ?? 0
    try raiseTicks(conversation, delivered: delivered, read: read, db: db)
  }

  /// Raises my ticks' numbers (never lowers them).
  private static func raiseTicks(
    _ conversation: ConversationID, delivered: Int, read: Int, db: Database
  ) throws {
    try db.run(
      """
      INSERT INTO receipts (conversation_id, delivered_up_to, read_up_to) VALUES (?, ?, ?)
      ON CONFLICT (conversation_id) DO UPDATE SET
        delivered_up_to = max(delivered_up_to, excluded.delivered_up_to),
        read_up_to = max(read_up_to, excluded.read_up_to)
      """, conversation.rawValue, delivered, read)
  }

  /// My ticks' numbers in a conversation; nil when none were ever loaded.
  static func receipts(_ conversation: ConversationID, db: Database) throws -> ReceiptsRecord? {
    try db.query(
      "SELECT delivered_up_to, read_up_to FROM receipts WHERE conversation_id = ?",
      conversation.rawValue
    ) { ReceiptsRecord(deliveredUpTo: $0.int(0), readUpTo: $0.int(1)) }.first
  }
}
