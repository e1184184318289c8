import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// A conversation as the server describes it, mapped for the store.
struct ServerConversation: Sendable, Equatable {
  var id: ConversationID
  var title: String
  var memberIDs: [UserID]
  var createdAt: Date
  var lastSequence: Int
  /// My read number on the server.
  var readUpTo: Int
  /// Part 2 (nil from a server that does not serve it): where I stand, what I can see.
  var participation: Participation? = nil
  var visible: VisibleSequences? = nil
  /// Whether `mutedUntil` is the server's word (a Part 2 server; nil then means not muted).
  var knowsMute = false
  var mutedUntil: Date? = nil
}

extension MessageStore {
  static let conversationColumns = """
    id, title, member_ids, created_at, last_sequence, read_up_to, read_acknowledged,
    synced_up_to, history_floor, membership, visible, muted_until
    """

  /// How many columns `conversationColumns` names (what a query selects after them starts
  /// here).
  static let conversationColumnCount = conversationColumns.split(separator: ",").count

  /// `conversationColumns`, each named with its table (for a query that joins another).
  static let qualifiedConversationColumns = conversationColumns.split(separator: ",")
    .map { "conversations." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    .joined(separator: ", ")

  static func conversationRecord(_ row: Row) -> ConversationRecord? {
    guard let id = ConversationID(rawValue: row.string(0)) else { return nil }
    let members = row.string(2).split(separator: ",").compactMap { UserID(rawValue: String($0)) }
    return ConversationRecord(
      id: id, title: row.string(1), memberIDs: members,
      createdAt: Date(timeIntervalSince1970: row.double(3)), lastSequence: row.int(4),
      readUpTo: row.int(5), readAcknowledged: row.int(6), syncedUpTo: row.optionalInt(7),
      historyFloor: row.optionalInt(8),
      participation: Participation(rawValue: row.string(9)) ?? .member,
      visible: VisibleSequences(stored: row.string(10)),
      mutedUntil: row.isNull(11) ? nil : Date(timeIntervalSince1970: row.double(11)))
  }

  func conversation(_ id: ConversationID) throws(StoreError) -> ConversationRecord? {
    try read { db in
      try db.query(
        "SELECT \(Self.conversationColumns) FROM conversations WHERE id = ?", id.rawValue
      ) { Self.conversationRecord($0) }.first ?? nil
    }
  }

  func conversations() throws(StoreError) -> [ConversationRecord] {
    try read { db in
      try db.query("SELECT \(Self.conversationColumns) FROM conversations ORDER BY id") {
        Self.conversationRecord($0)
      }.compactMap { $0 }
    }
  }

  /// Saves conversations from the server. Title, members and where I stand are replaced unless
  /// an item newer than the server's answer already changed them here; numbers only rise. A
  /// conversation the server says is empty needs no fetch: its sync position starts at 0.
  func saveConversations(
    _ conversations: [ServerConversation], lastMessages: [MessageRecord] = [],
    cursor: String? = nil, me: UserID
  ) throws(StoreError) {
    try write { db in
      if let cursor { try saveSyncCursor(cursor, db: db) }
      for conversation in conversations {
        try db.run(
          """
          INSERT INTO conversations (id, title, member_ids, created_at, last_sequence,
                                     read_up_to, read_acknowledged, synced_up_to, history_floor,
                                     membership, visible, members_as_of, title_as_of,
                                     muted_until)
          VALUES (?, ?, ?, ?, ?, ?, ?,
                  CASE WHEN ? = 0 THEN 0 END, CASE WHEN ? = 0 THEN 1 END,
                  coalesce(?, 'member'), coalesce(?, '1:'), ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET
            muted_until = CASE WHEN ? THEN excluded.muted_until ELSE muted_until END,
            title = CASE WHEN excluded.title_as_of >= title_as_of THEN excluded.title
                         ELSE title END,
            title_as_of = max(title_as_of, excluded.title_as_of),
            member_ids = CASE WHEN excluded.members_as_of >= members_as_of
                              THEN excluded.member_ids ELSE member_ids END,
            membership = CASE WHEN excluded.members_as_of >= members_as_of AND ? IS NOT NULL
                              THEN excluded.membership ELSE membership END,
            visible = CASE WHEN excluded.members_as_of >= members_as_of AND ? IS NOT NULL
                           THEN excluded.visible ELSE visible END,
            members_as_of = max(members_as_of, excluded.members_as_of),
            last_sequence = max(last_sequence, excluded.last_sequence),
            read_up_to = max(read_up_to, excluded.read_up_to),
            read_acknowledged = max(read_acknowledged, excluded.read_acknowledged)
          """, conversation.id.rawValue, conversation.title,
          conversation.memberIDs.map(\.rawValue).sorted().joined(separator: ","),
          conversation.createdAt.timeIntervalSince1970, conversation.lastSequence,
          conversation.readUpTo, conversation.readUpTo, conversation.lastSequence,
          conversation.lastSequence, conversation.participation?.rawValue,
          conversation.visible?.stored, conversation.lastSequence, conversation.lastSequence,
          conversation.mutedUntil?.timeIntervalSince1970, conversation.knowsMute,
          conversation.participation?.rawValue, conversation.visible?.stored)
        touch(conversation.id)
      }
      for message in lastMessages {
        try saveServerMessages([message], in: message.conversationID, me: me)
      }
    }
  }

  /// Mutes a conversation here, once the server took it (nil: unmuted).
  func setMuted(_ conversation: ConversationID, until: Date?) throws(StoreError) {
    try write { db in
      try db.run(
        "UPDATE conversations SET muted_until = ? WHERE id = ?", until?.timeIntervalSince1970,
        conversation.rawValue)
      touch(conversation)
    }
  }

  // MARK: - My read number

  /// The server has items up to `sequence` (a push said so): the catch-up knows how far
  /// behind it is, and asks for the pages side by side.
  func raiseLastSequence(_ conversation: ConversationID, to sequence: Int) throws(StoreError) {
    try write { db in
      try db.run(
        "UPDATE conversations SET last_sequence = ? WHERE id = ? AND last_sequence < ?",
        sequence, conversation.rawValue, sequence)
      if db.changes > 0 { touch(conversation) }
    }
  }

  /// Raises my read number here, before the server knows (the unread count drops at once).
  /// Returns false when it was already that high.
  @discardableResult
  func raiseOwnRead(_ conversation: ConversationID, upTo sequence: Int) throws(StoreError) -> Bool {
    try write { db in
      try db.run(
        "UPDATE conversations SET read_up_to = ? WHERE id = ? AND read_up_to < ?", sequence,
        conversation.rawValue, sequence)
      let raised = db.changes > 0
      if raised { touch(conversation) }
      return raised
    }
  }

  /// The server confirmed my read number.
  func acknowledgeRead(_ conversation: ConversationID, upTo sequence: Int) throws(StoreError) {
    try write { db in
      try db.run(
        "UPDATE conversations SET read_acknowledged = max(read_acknowledged, ?) WHERE id = ?",
        sequence, conversation.rawValue)
    }
  }

  /// Read numbers raised here that the server has not confirmed yet (owed after a restart).
  func unacknowledgedReads() throws(StoreError) -> [(ConversationID, Int)] {
    try read { db in
      try db.query(
        "SELECT id, read_up_to FROM conversations WHERE read_up_to > read_acknowledged ORDER BY id"
      ) { row in ConversationID(rawValue: row.string(0)).map { ($0, row.int(1)) } }
      .compactMap { $0 }
    }
  }

  // MARK: - Receipts

  /// Saves the receipts endpoint's answer: the caller's ticks and every member's numbers.
  func saveReceipts(
    _ receipts: ReceiptsRecord, members: [MemberReceiptRecord], in conversation: ConversationID,
    me: UserID
  ) throws(StoreError) {
    try write { db in
      try db.run(
        """
        INSERT INTO receipts (conversation_id, delivered_up_to, read_up_to) VALUES (?, ?, ?)
        ON CONFLICT (conversation_id) DO UPDATE SET
          delivered_up_to = max(delivered_up_to, excluded.delivered_up_to),
          read_up_to = max(read_up_to, excluded.read_up_to)
        """, conversation.rawValue, receipts.deliveredUpTo, receipts.readUpTo)
      for member in members {
        try saveMember(member, in: conversation, me: me, db: db)
      }
      touch(conversation)
    }
  }

  /// Saves one member's numbers (a socket receipt event), and recomputes my ticks when every
  /// other member's numbers are known.
  func saveMemberReceipt(
    _ member: MemberReceiptRecord, in conversation: ConversationID, me: UserID
  ) throws(StoreError) {
    try write { db in
      try saveMember(member, in: conversation, me: me, db: db)
      if member.userID != me { try recomputeTicks(conversation, me: me, db: db) }
      touch(conversation)
    }
  }

  private func saveMember(
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
  private func recomputeTicks(_ conversation: ConversationID, me: UserID, db: Database) throws {
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
    try db.run(
      """
      INSERT INTO receipts (conversation_id, delivered_up_to, read_up_to) VALUES (?, ?, ?)
      ON CONFLICT (conversation_id) DO UPDATE SET
        delivered_up_to = max(delivered_up_to, excluded.delivered_up_to),
        read_up_to = max(read_up_to, excluded.read_up_to)
      """, conversation.rawValue, delivered, read)
  }

  func receipts(in conversation: ConversationID) throws(StoreError) -> ReceiptsRecord? {
    try read { db in try Self.receipts(conversation, db: db) }
  }

  /// My ticks' numbers in a conversation; nil when none were ever loaded.
  static func receipts(_ conversation: ConversationID, db: Database) throws -> ReceiptsRecord? {
    try db.query(
      "SELECT delivered_up_to, read_up_to FROM receipts WHERE conversation_id = ?",
      conversation.rawValue
    ) { ReceiptsRecord(deliveredUpTo: $0.int(0), readUpTo: $0.int(1)) }.first
  }
}
