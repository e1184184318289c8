import ChatDomain
import ChatIdentifiers
import SQLite

/// One write of the store as the tables' rules see it: the connection inside the writer's
/// transaction, and what the write changed that the writer acts on once it commits (observers
/// told which conversations it touched, media files no row names swept). What GRDB's
/// `Database` is to a record's `save(_:)`: the rules take it, the writer (`MessageStore.write`)
/// makes it, one a transaction, and it never outlives the write.
final class StoreTransaction {
  let db: Database
  /// Test-only: the store's known bugs put back (`KnownBugs`).
  let knownBugs: KnownBugs
  /// The conversations whose observers hear of this write once it commits.
  private(set) var touched: Set<ConversationID> = []
  /// This write deleted a message or its media: once it commits, the files no row names go.
  private(set) var releasesMedia = false

  init(db: Database, knownBugs: KnownBugs) {
    self.db = db
    self.knownBugs = knownBugs
  }

  /// Marks `conversation` as changed by this write.
  func touch(_ conversation: ConversationID) {
    touched.insert(conversation)
  }

  /// Marks each of `conversations` (as the database spells them) as changed by this write.
  func touch(_ conversations: [String]) {
    for conversation in conversations {
      if let id = ConversationID(rawValue: conversation) { touched.insert(id) }
    }
  }

  /// This write deleted a message or its media.
  func releaseMedia() {
    releasesMedia = true
  }
}
