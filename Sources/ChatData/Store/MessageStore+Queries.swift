import ChatDomain
import ChatIdentifiers

/// The writer's entry points to the screens' reads (`SnapshotQuery`, `ConversationListQuery`,
/// `SearchQuery`), and every message row for the package's tools: each one read.
extension MessageStore {
  package func snapshot(_ conversation: ConversationID, limit: Int) throws(StoreError)
    -> ConversationSnapshot
  {
    try read {
      try SnapshotQuery.snapshot(
        conversation, limit: limit, media: media, requotes: !knownBugs.contains(.quotesAsServed),
        db: $0)
    }
  }

  /// The window of `limit` held rows centred on `sequence` (`SnapshotQuery.snapshot(around:)`).
  func snapshot(_ conversation: ConversationID, around sequence: Int, limit: Int)
    throws(StoreError) -> ConversationSnapshot
  {
    try read {
      try SnapshotQuery.snapshot(
        conversation, around: sequence, limit: limit, media: media,
        requotes: !knownBugs.contains(.quotesAsServed), db: $0)
    }
  }

  /// Every row of `messages`, by conversation, then sequence (unsent last): for the
  /// package's tools and tests that read a device's whole state (`ChatDataInspection`).
  package func allMessages() throws(StoreError) -> [MessageRecord] {
    try read { db in
      try db.query(
        "SELECT \(MessagesTable.columns) FROM messages "
          + "ORDER BY conversation_id, sequence IS NULL, sequence, client_id"
      ) { row in MessagesTable.record(row) }.compactMap { $0 }
    }
  }

  /// The list as `me` sees it (the mentions it counts are of me).
  func listRows(me: UserID) throws(StoreError) -> [ConversationListRow] {
    try read {
      try ConversationListQuery.rows(
        me: me, countsReadMentions: knownBugs.contains(.mentionsIgnoreRead), db: $0)
    }
  }

  func listRow(_ id: ConversationID, me: UserID) throws(StoreError) -> ConversationListRow? {
    try read {
      try ConversationListQuery.row(
        id, me: me, countsReadMentions: knownBugs.contains(.mentionsIgnoreRead), db: $0)
    }
  }

  /// Searches every message on the device; input with nothing to search for is
  /// `StoreError.invalidQuery` before any database work.
  package func search(_ query: String, limit: Int, order: SearchOrder = .newest) throws(StoreError)
    -> [SearchResultRecord]
  {
    let terms = try SearchQuery.terms(of: query)
    return try read { try SearchQuery.search(terms, limit: limit, order: order, db: $0) }
  }
}
