import ChatDomain
import ChatIdentifiers

/// The writer's entry points to the screens' reads (`SnapshotQuery`, `ConversationListQuery`,
/// `SearchQuery`): each one read.
extension MessageStore {
  func snapshot(_ conversation: ConversationID, limit: Int) throws(StoreError)
    -> ConversationSnapshot
  {
    try read { try SnapshotQuery.snapshot(conversation, limit: limit, media: media, db: $0) }
  }

  func listRows() throws(StoreError) -> [ConversationListRow] {
    try read { try ConversationListQuery.rows(db: $0) }
  }

  func listRow(_ id: ConversationID) throws(StoreError) -> ConversationListRow? {
    try read { try ConversationListQuery.row(id, db: $0) }
  }

  /// Searches every message on the device; input with nothing to search for is
  /// `StoreError.invalidQuery` before any database work.
  func search(_ query: String, limit: Int, order: SearchOrder = .newest) throws(StoreError)
    -> [SearchResultRecord]
  {
    let terms = try SearchQuery.terms(of: query)
    return try read { try SearchQuery.search(terms, limit: limit, order: order, db: $0) }
  }
}
