import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// A conversation as the server describes it, mapped for the store.
package struct ServerConversation: Sendable, Equatable {
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
  /// Part 3 (nil from a server without it): my unread messages that mention me, and whether a
  /// mention pushes through the mute.
  var unreadMentions: Int? = nil
  var mentionsPushThroughMute: Bool? = nil
  /// Part 3 (nil from a server without pins): the pinned messages I can see, newest pin first,
  /// true as of `lastSequence`.
  var pinned: [PinnedEntry]? = nil
  /// Part 3: my draft as the server holds it (nil before its first save, and from a server
  /// without drafts).
  var draft: DraftRecord? = nil

  package init(
    id: ConversationID, title: String, memberIDs: [UserID], createdAt: Date, lastSequence: Int,
    readUpTo: Int, participation: Participation? = nil, visible: VisibleSequences? = nil,
    knowsMute: Bool = false, mutedUntil: Date? = nil, unreadMentions: Int? = nil,
    mentionsPushThroughMute: Bool? = nil, pinned: [PinnedEntry]? = nil
  ) {
    self.pinned = pinned
    self.unreadMentions = unreadMentions
    self.mentionsPushThroughMute = mentionsPushThroughMute
    self.id = id
    self.title = title
    self.memberIDs = memberIDs
    self.createdAt = createdAt
    self.lastSequence = lastSequence
    self.readUpTo = readUpTo
    self.participation = participation
    self.visible = visible
    self.knowsMute = knowsMute
    self.mutedUntil = mutedUntil
  }
}

/// The `conversations` table: one row per conversation this device knows, with the server's
/// numbers, my read number, where I stand (membership, visible ranges), mute, and this
/// device's sync position (`MessagesTable+SyncPosition.swift`). The record is
/// `ConversationRecord`; the receipt numbers are `ReceiptsTable`'s.
///
/// ## Rules a reader could not guess
/// - Numbers only go up: `last_sequence`, read numbers are raised with `max`, so a late or
///   repeated answer never moves anything back.
/// - Title, members and where I stand carry the sequence of the item that set them
///   (`title_as_of`, `members_as_of`): an older answer never undoes a newer item.
enum ConversationsTable {
  static let columns = """
    id, title, member_ids, created_at, last_sequence, read_up_to, read_acknowledged,
    synced_up_to, history_floor, membership, visible, muted_until, unread_mentions,
    muted_mentions, pinned, draft_text, draft_reply_to
    """

  /// How many columns `columns` names (what a query selects after them starts here).
  static let columnCount = columns.split(separator: ",").count

  /// `columns`, each named with its table (for a query that joins another).
  static let qualifiedColumns = columns.split(separator: ",")
    .map { "conversations." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    .joined(separator: ", ")

  static func record(_ row: Row) -> ConversationRecord? {
    guard let id = ConversationID(rawValue: row.string(0)) else { return nil }
    let members = row.string(2).split(separator: ",").compactMap { UserID(rawValue: String($0)) }
    return ConversationRecord(
      id: id, title: row.string(1), memberIDs: members,
      createdAt: Date(timeIntervalSince1970: row.double(3)), lastSequence: row.int(4),
      readUpTo: row.int(5), readAcknowledged: row.int(6), syncedUpTo: row.optionalInt(7),
      historyFloor: row.optionalInt(8),
      participation: Participation(rawValue: row.string(9)) ?? .member,
      visible: VisibleSequences(stored: row.string(10)),
      mutedUntil: row.isNull(11) ? nil : Date(timeIntervalSince1970: row.double(11)),
      unreadMentions: row.int(12), mentionsPushThroughMute: row.string(13) != "silent",
      pinned: PinnedEntry.list(stored: row.optionalString(14)),
      draft: row.optionalString(15).flatMap { text in
        let replyTo = row.optionalString(16).flatMap(MessageID.init(rawValue:))
        return text.isEmpty && replyTo == nil ? nil : MessageDraft(text: text, replyTo: replyTo)
      })
  }

  static func conversation(_ id: ConversationID, db: Database) throws -> ConversationRecord? {
    try db.query("SELECT \(columns) FROM conversations WHERE id = ?", id.rawValue) {
      record($0)
    }.first ?? nil
  }

  /// Every conversation, in ID order.
  static func all(db: Database) throws -> [ConversationRecord] {
    try db.query("SELECT \(columns) FROM conversations ORDER BY id") { record($0) }
      .compactMap { $0 }
  }

  /// Saves conversations from the server. Title, members and where I stand are replaced unless
  /// an item newer than the server's answer already changed them here; numbers only rise. A
  /// conversation the server says is empty needs no fetch: its sync position starts at 0.
  /// `lastMessages` are saved as the server's messages; `cursor` is the next `/v1/sync`'s.
  static func save(
    _ conversations: [ServerConversation], lastMessages: [MessageRecord], cursor: String?,
    me: UserID, tx: StoreTransaction
  ) throws {
    if let cursor { try SettingsTable.saveSyncCursor(cursor, tx: tx) }
    let keepsLastPins = tx.knownBugs.contains(.pinsKeepLastWhenNoneServed)
    for conversation in conversations {
      try tx.db.run(
        """
        INSERT INTO conversations (id, title, member_ids, created_at, last_sequence,
                                   read_up_to, read_acknowledged, synced_up_to, history_floor,
                                   membership, visible, members_as_of, title_as_of,
                                   muted_until, unread_mentions, muted_mentions,
                                   pinned_served, pinned_as_of)
        VALUES (?, ?, ?, ?, ?, ?, ?,
                CASE WHEN ? = 0 THEN 0 END, CASE WHEN ? = 0 THEN 1 END,
                coalesce(?, 'member'), coalesce(?, '1:'), ?, ?, ?, coalesce(?, 0),
                coalesce(?, 'push'), ?, CASE WHEN ? THEN ? ELSE 0 END)
        ON CONFLICT (id) DO UPDATE SET
          pinned_served = CASE WHEN ? AND excluded.pinned_as_of >= pinned_as_of
                               THEN \(keepsLastPins ? "coalesce(excluded.pinned_served, pinned_served)" : "excluded.pinned_served")
                               ELSE pinned_served END,
          pinned_as_of = CASE WHEN ? THEN max(pinned_as_of, excluded.pinned_as_of)
                              ELSE pinned_as_of END,
          muted_until = CASE WHEN ? THEN excluded.muted_until ELSE muted_until END,
          unread_mentions = CASE WHEN ? IS NOT NULL THEN excluded.unread_mentions
                                 ELSE unread_mentions END,
          muted_mentions = CASE WHEN ? IS NOT NULL THEN excluded.muted_mentions
                                ELSE muted_mentions END,
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
        conversation.mutedUntil?.timeIntervalSince1970, conversation.unreadMentions,
        conversation.mentionsPushThroughMute.map { $0 ? "push" : "silent" },
        conversation.pinned.flatMap(PinnedEntry.stored), conversation.pinned != nil,
        conversation.lastSequence, conversation.pinned != nil, conversation.pinned != nil,
        conversation.knowsMute, conversation.unreadMentions,
        conversation.mentionsPushThroughMute, conversation.participation?.rawValue,
        conversation.visible?.stored)
      tx.touch(conversation.id)
      if conversation.pinned != nil { try MessagesTable.foldPins(of: conversation.id, tx: tx) }
      if let draft = conversation.draft, !tx.knownBugs.contains(.draftsIgnoreServed) {
        try saveServedDraft(draft, tx: tx)
      }
    }
    for message in lastMessages {
      _ = try MessagesTable.saveServerMessages(
        [message], in: message.conversationID, me: me, tx: tx)
    }
  }

  /// Mutes a conversation here, once the server took it (nil: unmuted); `mentionsPush`: a
  /// message that mentions me still pushes through the mute.
  static func setMuted(
    _ conversation: ConversationID, until: Date?, mentionsPush: Bool, tx: StoreTransaction
  ) throws {
    try tx.db.run(
      "UPDATE conversations SET muted_until = ?, muted_mentions = ? WHERE id = ?",
      until?.timeIntervalSince1970, mentionsPush ? "push" : "silent", conversation.rawValue)
    tx.touch(conversation)
  }

  /// The server has items up to `sequence` (a push said so): the catch-up knows how far
  /// behind it is, and asks for the pages side by side.
  static func raiseLastSequence(
    _ conversation: ConversationID, to sequence: Int, tx: StoreTransaction
  ) throws {
    try tx.db.run(
      "UPDATE conversations SET last_sequence = ? WHERE id = ? AND last_sequence < ?",
      sequence, conversation.rawValue, sequence)
    if tx.db.changes > 0 { tx.touch(conversation) }
  }

  // MARK: - My read number

  /// Raises my read number here, before the server knows (the unread count drops at once).
  /// Returns false when it was already that high.
  static func raiseOwnRead(_ conversation: ConversationID, upTo sequence: Int, tx: StoreTransaction)
    throws -> Bool
  {
    try tx.db.run(
      "UPDATE conversations SET read_up_to = ? WHERE id = ? AND read_up_to < ?", sequence,
      conversation.rawValue, sequence)
    let raised = tx.db.changes > 0
    if raised { tx.touch(conversation) }
    return raised
  }

  /// The server confirmed my read number.
  static func acknowledgeRead(
    _ conversation: ConversationID, upTo sequence: Int, tx: StoreTransaction
  ) throws {
    try tx.db.run(
      "UPDATE conversations SET read_acknowledged = max(read_acknowledged, ?) WHERE id = ?",
      sequence, conversation.rawValue)
  }

  /// Read numbers raised here that the server has not confirmed yet (owed after a restart).
  static func unacknowledgedReads(db: Database) throws -> [(ConversationID, Int)] {
    try db.query(
      "SELECT id, read_up_to FROM conversations WHERE read_up_to > read_acknowledged ORDER BY id"
    ) { row in ConversationID(rawValue: row.string(0)).map { ($0, row.int(1)) } }
    .compactMap { $0 }
  }
}
