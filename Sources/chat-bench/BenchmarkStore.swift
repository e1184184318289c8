import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// The message store, reached directly by `chat-bench`, for the figures that measure
/// the store itself below the repositories: ingest (B1), the conversation window (B2) and
/// search (B3). It also builds the database the other figures open with `ChatEngine.open`.
///
/// It lives in `chat-bench`, not in the engine an app ships: what it calls in `ChatData`
/// (`MessageStore` and the few of its members below) is `package`, so only targets of this
/// see it. Every method is the store's own code path, unchanged; nothing here is a
/// faster variant.
final class BenchmarkStore: Sendable {
  let store: MessageStore

  /// The executor the store runs on.
  var executor: any SerialTaskExecutor { store.executor }

  private init(store: MessageStore) {
    self.store = store
  }

  /// Opens (creating and migrating) a store database on `executor`, as an engine does.
  static func open(_ location: Database.Location, executor: any SerialTaskExecutor)
    async throws -> BenchmarkStore
  {
    BenchmarkStore(store: try await MessageStore.open(location, executor: executor))
  }

  /// Saves a signed-in session with placeholder tokens, so `ChatEngine.open` opens the file as
  /// the device of `user`. The tokens are never valid: an engine opened on it works offline.
  func saveSession(user: UserID, device: DeviceID) async throws {
    try await store.saveSession(
      SessionRecord(
        userID: user, deviceID: device, accessToken: "benchmark", refreshToken: "benchmark",
        expiresAt: Date(timeIntervalSinceNow: 365 * 24 * 3600)))
  }

  /// Saves a conversation as `/v1/sync` reports it, before any message was fetched.
  func saveConversation(
    _ id: ConversationID, title: String, members: [UserID], createdAt: Date, me: UserID
  ) async throws {
    try await store.saveConversations(
      [
        ServerConversation(
          id: id, title: title, memberIDs: members, createdAt: createdAt, lastSequence: 0,
          readUpTo: 0)
      ], me: me)
  }

  /// One page of a conversation's messages from the server, mapped ahead of time so that a
  /// measurement of `ingest(_:me:)` holds only the store's work.
  struct Page: Sendable {
    let conversation: ConversationID
    let records: [MessageRecord]

    var count: Int { records.count }

    init(conversation: ConversationID, messages: [BenchmarkMessage]) {
      self.conversation = conversation
      records = messages.map {
        MessageRecord(
          sentIn: $0.conversation, clientID: $0.clientID, senderID: $0.sender,
          serverID: $0.serverID, text: $0.text, sequence: $0.sequence, sentAt: $0.sentAt,
          reactions: $0.reactions, replyTo: $0.replyTo, quote: $0.quote)
      }
    }
  }

  /// Saves a page the way a catch-up does (`saveServerMessages`): one transaction, rows upserted
  /// by ID, the search index filled by the triggers, the sync position moved.
  func ingest(_ page: Page, me: UserID) async throws {
    try await store.saveServerMessages(page.records, in: page.conversation, me: me)
  }

  /// What a conversation screen reads (`snapshot`): the newest `limit` messages and the rest.
  /// Returns the number of messages read.
  func window(_ conversation: ConversationID, limit: Int) async throws -> Int {
    try await store.snapshot(conversation, limit: limit).messages.count
  }

  /// A search as the app runs it; returns the number of hits.
  func search(_ query: String, limit: Int, ranked: Bool) async throws -> Int {
    try await store.search(query, limit: limit, order: ranked ? .relevance : .newest).count
  }

  /// The SQL of the window query `window(_:limit:)` runs for the messages, with its three
  /// parameters: conversation, history floor, limit.
  static var windowSQL: String { SnapshotQuery.windowSQL }

  /// What pruning to `retention` at `now` deletes (`ChatEngine.maintain`'s plan): each
  /// conversation with the lowest sequence it keeps.
  func pruneTargets(_ retention: Retention, now: Date) async throws -> [(
    conversation: ConversationID, floor: Int
  )] {
    try await store.pruneTargets(retention, now: now).map { ($0.conversation, $0.floor) }
  }

  /// One of `ChatEngine.maintain`'s pruning transactions; returns the items it deleted.
  func pruneStep(_ conversation: ConversationID, floor: Int, batch: Int) async throws
    -> Int
  {
    try await store.pruneStep(PruneTarget(conversation: conversation, floor: floor), batch: batch)
  }

  /// Items per pruning transaction, as the engine prunes.
  static var pruneBatch: Int { ChatEngine.pruneBatch }

  /// The delete `pruneStep` runs, with its three parameters: conversation, floor, batch.
  static var pruneSQL: String { StoreUpkeep.pruneSQL }

  /// `PRAGMA optimize`, the incremental vacuum and the checkpoint after pruning; returns the
  /// pages given back to the file system.
  func tidy() async throws -> Int {
    try await store.tidy()
  }

  /// The SQL `search(_:limit:ranked:)` runs for `query`, and its parameters but the last
  /// (the limit, an integer): all text.
  static func searchPlan(for query: String, ranked: Bool) throws -> (
    sql: String, texts: [String]
  ) {
    let plan = SearchQuery.plan(
      try SearchQuery.terms(of: query), order: ranked ? .relevance : .newest, limit: 1)
    return (plan.sql, plan.values.dropLast().map { $0 as! String })
  }
}

/// A message as the server sends it, for `BenchmarkStore.Page`.
struct BenchmarkMessage: Sendable {
  var conversation: ConversationID
  var clientID: MessageID
  var sender: UserID
  var serverID: String
  var text: String
  var sequence: Int
  var sentAt: Date
  /// With `--part-three`: its reactions as served, and the message it answers with its quote.
  var reactions: [ReactionGroup] = []
  var replyTo: MessageID? = nil
  var quote: Quote? = nil
}
