import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// The message database (seed 000 part 7): message rows, receipt numbers, conversations, the sync
/// position and the search index, on the device. The screen's only source of truth.
///
/// The store is the one serialized writer of its file: one actor owns the one connection and
/// runs on the engine's serial executor, so every write is serialized and no SQLite call blocks
/// a thread of the cooperative pool. Each write is one transaction (`write(_:)`); observers of
/// `changes()` hear which conversations it touched, after the commit; the media files it
/// released are swept and the erasure it owes is started then too.
///
/// The tables' rules are not here but beside their records, a type per concern, each function
/// taking the write's `StoreTransaction` (or, for a read, the `Database`): `MessagesTable`,
/// `OutboxRows`, `ConversationsTable`, `ReceiptsTable`, `MediaFiles`, `StoreUpkeep`,
/// `SessionTable` and `SettingsTable`; the screens' reads are `SnapshotQuery`,
/// `ConversationListQuery` and `SearchQuery`. The store's methods that the engine calls
/// (`MessageStore+Messages.swift`, `+Outbox`, `+Conversations`, `+Media`, `+Upkeep`,
/// `+Queries`, `+Session`) each run one of them, with the rule's name, in one transaction or
/// as one read.
package actor MessageStore {
  package nonisolated let executor: any SerialTaskExecutor
  package nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  let db: Database
  private let subscribers = Broadcaster<StoreChange>(buffering: .unbounded)
  /// What the write in progress touched and released (`StoreTransaction`), until it commits.
  private var touched: Set<ConversationID> = []
  private var mediaReleased = false
  /// Media files being written for a message not saved yet: no sweep removes them.
  private(set) var reservedMediaFiles: Set<String> = []
  /// Test-only: the store's known bugs put back (`KnownBugs`).
  let knownBugs: KnownBugs
  /// Where media bytes go (`MediaFolder`): beside a database file; nil in memory.
  let media: MediaFolder?
  /// Takes deleted and replaced text out of the search indexes' pages, a step at a time
  /// (`MessageStore+Erasure.swift`), and its task while a pass runs.
  var eraser = SegmentEraser(indexes: ["message_search", "message_search_unspaced"])
  var erasing: Task<Void, Never>?
  /// The database file; nil in memory (`MessageStore+FreeSpace.swift` reads it).
  let databasePath: String?
  /// A pass was owed at open: it ends with `VACUUM` (`sweepFreeSpace`).
  var vacuumOwed = false
  /// `VACUUM`s the erasure passes ran (tests).
  package internal(set) var vacuums = 0

  private init(
    db: Database, executor: any SerialTaskExecutor, knownBugs: KnownBugs, media: MediaFolder?,
    databasePath: String?
  ) {
    self.databasePath = databasePath
    self.db = db
    self.executor = executor
    self.knownBugs = knownBugs
    self.media = media
  }

  /// Opens (creating and migrating) the database on `executor`'s thread.
  package static func open(
    _ location: Database.Location, executor: any SerialTaskExecutor, knownBugs: KnownBugs = []
  ) async throws(StoreError) -> MessageStore {
    var media: MediaFolder?
    var path: String?
    if case .file(let file) = location {
      media = MediaFolder(databasePath: file)
      path = file
    }
    let result: Result<MessageStore, StoreError> = await executor.spawn {
      do {
        // Every commit is synced (`synchronous=FULL`): what the user saw saved (a message
        // shown as sending, an edit, a reaction) outlives a power loss, not only a crash of
        // the app. NORMAL would lose the commits since the last checkpoint (issue 38).
        let durability: Database.Durability =
          knownBugs.contains(.unsyncedCommits) ? .normal : .full
        let db = try Database(
          location, durability: durability, incrementalVacuum: true, keepsLogFiles: true)
        // A delete is real (API.md Part 2): what SQLite frees is overwritten, not left behind.
        try db.execute("PRAGMA secure_delete = ON")
        try Self.migrator.migrate(db)
        try ReplacedTexts.install(db)
        let store = MessageStore(
          db: db, executor: executor, knownBugs: knownBugs, media: media, databasePath: path)
        // What an earlier launch (or a migration) left owed is erased now, and what it
        // replaced is no longer known: the pass ends with VACUUM.
        await store.owedAtOpen()
        return .success(store)
      } catch {
        return .failure(StoreError(error))
      }
    }.value
    return try result.get()
  }

  // MARK: - Writes and change notification

  /// Runs `body` in one transaction, then tells observers which conversations it touched,
  /// starts the erasure it owes and sweeps the media files it released. Nested calls join the
  /// outer transaction (as a savepoint); all of that happens once, after the outermost commit.
  func write<T>(_ body: (StoreTransaction) throws -> T) throws(StoreError) -> T {
    let transaction = StoreTransaction(db: db, knownBugs: knownBugs)
    do {
      let result = try db.write { _ in try body(transaction) }
      touched.formUnion(transaction.touched)
      mediaReleased = mediaReleased || transaction.releasesMedia
      if !db.isInTransaction {
        publish()
        eraseIfOwed()
        if mediaReleased {
          mediaReleased = false
          removeUnreferencedMediaFiles()
        }
      }
      return result
    } catch {
      if !db.isInTransaction {
        touched.removeAll()
        mediaReleased = false
      }
      throw StoreError(error)
    }
  }

  /// Runs a read.
  package func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    do {
      return try body(db)
    } catch {
      throw StoreError(error)
    }
  }

  private func publish() {
    guard !touched.isEmpty else { return }
    let change = StoreChange(conversations: touched)
    touched.removeAll()
    subscribers.yield(change)
  }

  /// Every committed change, from now on. Cancelling the consumer ends the subscription.
  func changes() -> AsyncStream<StoreChange> {
    subscribers.subscribe { [weak self] id in
      guard let self else { return }
      self.executor.spawn { await self.unsubscribe(id) }
    }
  }

  private func unsubscribe(_ id: Int) {
    subscribers.remove(id)
  }

  /// Tells observers of `conversation` to read again although nothing was written (a screen's
  /// window grew).
  func invalidate(_ conversation: ConversationID) {
    touched.insert(conversation)
    publish()
  }

  /// Ends every subscription (the engine is closing).
  func finishSubscriptions() {
    subscribers.finish()
  }

  /// Finishes the erasure under way (`MessageStore+Erasure.swift`), then closes the database;
  /// every later call fails.
  func close() async {
    await finishErasure()
    db.close()
  }

  // MARK: - Media files

  /// `name` is being written for a message about to be saved (and its `.tmp`): kept by the
  /// sweeps until `unreserveMediaFile`.
  func reserveMediaFile(_ name: String) {
    reservedMediaFiles.insert(name)
  }

  func unreserveMediaFile(_ name: String) {
    reservedMediaFiles.remove(name)
  }

  /// Deletes the media folder's files no row names (`MediaFiles.removeUnreferenced`): after
  /// a write that released media, and at launch.
  func removeUnreferencedMediaFiles() {
    guard let media else { return }
    MediaFiles.removeUnreferenced(in: media, reserved: reservedMediaFiles, db: db)
  }
}
