import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// The `messages` table: every item of every conversation this device holds (the server's,
/// by sequence, and my unsent ones, without), and its rules. The record is `MessageRecord`.
///
/// Its concerns, a file each: saving the server's items by ID and applying what each does
/// (`MessagesTable+ServerItems.swift`), the sync position and its gaps
/// (`MessagesTable+SyncPosition.swift`), my own edits and deletes
/// (`MessagesTable+LocalChanges.swift`), reactions, mine queued too
/// (`MessagesTable+Reactions.swift`), and replies' quotes and mentions made unknown by an edit
/// (`MessagesTable+Replies.swift`). The outbox is its unsent rows (`OutboxRows`).
///
/// ## Rules a reader could not guess
/// - Messages are saved by ID: the key is (conversation, sender, client message ID), so a
///   message delivered twice is stored once, and the server's copy of my own message turns my
///   pending row into the acknowledged one.
/// - The search indexes are filled by triggers, in the same transaction as the rows.
enum MessagesTable {
  static let columns =
    """
    conversation_id, client_id, sender_id, server_id, text, sequence, sent_at, state, failure, \
    kind, target, edited_at, deleted, pending_edited_at, added, removed, item_title, media, \
    media_file, upload_sent, upload_done, reactions, reply_to, quote, mentions, forward_of
    """

  /// How many columns `columns` names (what a query selects after them starts here).
  static let columnCount = columns.split(separator: ",").count

  /// `columns` of the table named `m` in a join.
  static let columnsOfM = columns.split(separator: ",")
    .map { "m." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")

  /// Maps a row selected with `columns`; nil for a row this version cannot read.
  /// `conversation`: the one a query's `conversation_id = ?` already names, so its column is
  /// neither read nor checked again for each row. `heldQuote`: where the row's columns of the
  /// message it answers start, when the query joined them (`SnapshotQuery.quotedColumns`): a
  /// reply whose target is held quotes it as held, else its stored quote stands.
  static func record(
    _ row: Row, offset: Int = 0, in conversation: ConversationID? = nil, heldQuote: Int? = nil
  ) -> MessageRecord? {
    guard let conversation = conversation ?? ConversationID(rawValue: row.string(offset)),
      let clientID = MessageID(rawValue: row.string(offset + 1)),
      let sender = UserID(rawValue: row.string(offset + 2)),
      let state = MessageRecord.State(rawValue: row.int(offset + 7))
    else { return nil }
    return MessageRecord(
      conversationID: conversation, clientID: clientID, senderID: sender,
      serverID: row.optionalString(offset + 3), text: row.string(offset + 4),
      sequence: row.optionalInt(offset + 5),
      sentAt: Date(timeIntervalSince1970: row.double(offset + 6)), state: state,
      failure: row.optionalString(offset + 8),
      kind: kind(row.string(offset + 9)),
      target: row.optionalString(offset + 10).flatMap(MessageID.init(rawValue:)),
      editedAt: row.isNull(offset + 11)
        ? nil : Date(timeIntervalSince1970: row.double(offset + 11)),
      isDeleted: row.int(offset + 12) != 0,
      pendingEditedAt: row.isNull(offset + 13)
        ? nil : Date(timeIntervalSince1970: row.double(offset + 13)),
      added: users(row.optionalString(offset + 14)),
      removed: users(row.optionalString(offset + 15)), title: row.optionalString(offset + 16),
      media: row.optionalString(offset + 17).flatMap(Self.media(stored:)),
      mediaFile: row.optionalString(offset + 18),
      uploadedBytes: row.isNull(offset + 17) || row.int(offset + 20) != 0
        ? nil : row.int(offset + 19),
      reactions: row.optionalString(offset + 21).flatMap(Self.reactions(stored:)) ?? [],
      replyTo: row.optionalString(offset + 22).flatMap(MessageID.init(rawValue:)),
      quote: heldQuote.flatMap { quote(held: row, at: $0) }.map { .shown($0) }
        ?? row.optionalString(offset + 23).flatMap(Self.quote(stored:)),
      mentions: users(row.optionalString(offset + 24)),
      forwardOf: row.optionalString(offset + 25))
  }

  /// The quote of a held message whose `quoteColumns` a row holds from `index`; nil when the
  /// row has none (a left join that found no target).
  static func quote(held row: Row, at index: Int) -> Quote? {
    guard !row.isNull(index) else { return nil }
    return Quote(
      senderId: row.string(index), sequence: row.int(index + 1),
      currentText: row.string(index + 2),
      mediaKind: row.optionalString(index + 4).flatMap(MediaKind.init(rawValue:)),
      deleted: row.int(index + 3) != 0)
  }

  /// What `quote(held:at:)` reads of the message named `alias`: sender, sequence (0 while
  /// unsent), text, deleted, media kind.
  static func quoteColumns(of alias: String) -> String {
    """
    \(alias).sender_id, coalesce(\(alias).sequence, 0), \(alias).text, \(alias).deleted, \
    json_extract(\(alias).media, '$.kind')
    """
  }

  /// The `quote` column: the server's quote as JSON, or `null` when it is hidden.
  static func quote(stored: String) -> MessageRecord.ServedQuote? {
    if stored == "null" { return .hidden }
    return (try? APICoding.decode(Quote.self, from: stored)).map { .shown($0) }
  }

  static func stored(quote: MessageRecord.ServedQuote) -> String {
    switch quote {
    case .hidden: "null"
    case .shown(let quote): String(decoding: APICoding.encode(quote), as: UTF8.self)
    }
  }

  /// A list of user IDs as stored: comma-separated, NULL when empty.
  static func stored(users: [UserID]) -> String? {
    users.isEmpty ? nil : users.map(\.rawValue).joined(separator: ",")
  }

  /// The `reactions` columns: API.md's array, as JSON.
  static func reactions(stored: String) -> [ReactionGroup]? {
    (try? JSONParser.parse(stored)).flatMap(ReactionGroup.list(from:))
  }

  static func stored(reactions: [ReactionGroup]) -> String? {
    reactions.isEmpty ? nil : String(decoding: APICoding.encode(reactions), as: UTF8.self)
  }

  /// A comma-separated list of user IDs (a members item's `added` or `removed`).
  static func users(_ list: String?) -> [UserID] {
    guard let list, !list.isEmpty else { return [] }
    return list.split(separator: ",").compactMap { UserID(rawValue: String($0)) }
  }

  /// An item's kind; a message when unknown. Almost every row is one: that is tested first
  /// (a `switch` over the cases' strings showed in B2's profile).
  private static func kind(_ text: String) -> MessageRecord.Kind {
    text == "message" ? .message : MessageRecord.Kind(rawValue: text) ?? .message
  }

  /// The `media` column: the API's `Media`, as JSON.
  static func media(stored: String) -> Media? {
    try? APICoding.decode(Media.self, from: stored)
  }

  static func stored(media: Media) -> String {
    String(decoding: APICoding.encode(media), as: UTF8.self)
  }

  // MARK: - Lookups

  /// My message with this ID, in any conversation.
  static func message(_ id: MessageID, sender: UserID, db: Database) throws -> MessageRecord? {
    try db.query(
      "SELECT \(columns) FROM messages WHERE client_id = ? AND sender_id = ?",
      id.rawValue, sender.rawValue
    ) { record($0) }.first ?? nil
  }

  /// The message with this client ID in a conversation, anyone's (what a reply or a reaction
  /// names), the server's copy first.
  static func message(_ id: MessageID, in conversation: ConversationID, db: Database) throws
    -> MessageRecord?
  {
    try db.query(
      """
      SELECT \(columns) FROM messages INDEXED BY messages_by_client_id
      WHERE client_id = ? AND conversation_id = ? AND kind = 'message'
      ORDER BY sequence IS NULL, sequence LIMIT 1
      """, id.rawValue, conversation.rawValue
    ) { record($0, in: conversation) }.first ?? nil
  }

  /// The newest sequence held in a conversation (seed 000 §6.7).
  static func newestSequence(in conversation: ConversationID, db: Database) throws -> Int? {
    try db.scalarInt(
      "SELECT max(sequence) FROM messages WHERE conversation_id = ?", conversation.rawValue)
  }
}
