import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// The message database (seed 000 part 7): message rows, receipt numbers, conversations, the sync
/// position and the search index, on the device. The screen's only source of truth.
///
/// One actor owns the one connection and runs on the engine's serial executor, so every write
/// is serialized and no SQLite call blocks a thread of the cooperative pool. Each write method
/// is one transaction; observers of `changes()` hear which conversations it touched, after the
/// commit.
///
/// ## Rules a reader could not guess
/// - Messages are saved by ID: the key is (conversation, sender, client message ID), so a
///   message delivered twice is stored once, and the server's copy of my own message turns my
///   pending row into the acknowledged one.
/// - Numbers only go up: `lastSequence`, read and delivered numbers are raised with `max`, so a
///   late or repeated answer never moves anything back.
/// - The search index is filled by triggers, in the same transaction as the rows.
actor MessageStore {
  nonisolated let executor: any SerialTaskExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  let db: Database
  private let subscribers = Broadcaster<StoreChange>(buffering: .unbounded)
  private var touched: Set<ConversationID> = []
  /// The write in progress deleted a message that may have had a media file: once it commits,
  /// the files no row names go (`removeUnreferencedMediaFiles`).
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

  private init(
    db: Database, executor: any SerialTaskExecutor, knownBugs: KnownBugs, media: MediaFolder?
  ) {
    self.db = db
    self.executor = executor
    self.knownBugs = knownBugs
    self.media = media
  }

  /// Opens (creating and migrating) the database on `executor`'s thread.
  static func open(
    _ location: Database.Location, executor: any SerialTaskExecutor, knownBugs: KnownBugs = []
  ) async throws(StoreError) -> MessageStore {
    var media: MediaFolder?
    if case .file(let path) = location { media = MediaFolder(databasePath: path) }
    let result: Result<MessageStore, StoreError> = await executor.spawn {
      do {
        let db = try Database(location, incrementalVacuum: true)
        // A delete is real (API.md Part 2): what SQLite frees is overwritten, not left behind.
        try db.execute("PRAGMA secure_delete = ON")
        try Self.migrator.migrate(db)
        let store = MessageStore(db: db, executor: executor, knownBugs: knownBugs, media: media)
        // What an earlier launch (or a migration) left owed is erased now.
        await store.eraseIfOwed()
        return .success(store)
      } catch {
        return .failure(StoreError(error))
      }
    }.value
    return try result.get()
  }

  // MARK: - Writes and change notification

  /// Runs `body` in one transaction, then tells observers which conversations it touched.
  /// Nested calls join the outer transaction (as a savepoint); observers hear once, after the
  /// outermost commit.
  func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    do {
      let result = try db.write(body)
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

  /// The write in progress deleted a message or its media.
  func releaseMedia() {
    mediaReleased = true
  }

  /// `name` is being written for a message about to be saved (and its `.tmp`): kept by the
  /// sweeps until `unreserveMediaFile`.
  func reserveMediaFile(_ name: String) {
    reservedMediaFiles.insert(name)
  }

  func unreserveMediaFile(_ name: String) {
    reservedMediaFiles.remove(name)
  }

  /// Runs a read.
  func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    do {
      return try body(db)
    } catch {
      throw StoreError(error)
    }
  }

  /// Marks a conversation as changed by the write in progress.
  func touch(_ conversation: ConversationID) {
    touched.insert(conversation)
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
    touch(conversation)
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

  // MARK: - Session

  func session() throws(StoreError) -> SessionRecord? {
    try read { db in
      try db.query(
        "SELECT user_id, device_id, access_token, refresh_token, expires_at FROM session"
      ) { row -> SessionRecord? in
        guard let user = UserID(rawValue: row.string(0)),
          let device = DeviceID(rawValue: row.string(1))
        else { return nil }
        return SessionRecord(
          userID: user, deviceID: device, accessToken: row.string(2),
          refreshToken: row.string(3), expiresAt: Date(timeIntervalSince1970: row.double(4)))
      }.first ?? nil
    }
  }

  func saveSession(_ session: SessionRecord) throws(StoreError) {
    try write { db in
      try db.run(
        """
        INSERT INTO session (id, user_id, device_id, access_token, refresh_token, expires_at)
        VALUES (1, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id,
          device_id = excluded.device_id, access_token = excluded.access_token,
          refresh_token = excluded.refresh_token, expires_at = excluded.expires_at
        """, session.userID.rawValue, session.deviceID.rawValue, session.accessToken,
        session.refreshToken, session.expiresAt.timeIntervalSince1970)
    }
  }

  // MARK: - Settings

  /// A value the engine keeps between launches (`sync_state`), nil when never saved.
  func setting(_ key: String) throws(StoreError) -> String? {
    try read { db in
      try db.query("SELECT value FROM sync_state WHERE key = ?", key) { $0.string(0) }.first
    }
  }

  /// Saves (or, with nil, removes) a value kept between launches.
  func saveSetting(_ key: String, _ value: String?) throws(StoreError) {
    try write { db in
      if let value {
        try db.run(
          """
          INSERT INTO sync_state (key, value) VALUES (?, ?)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value
          """, key, value)
      } else {
        try db.run("DELETE FROM sync_state WHERE key = ?", key)
      }
    }
  }

  // MARK: - Sync cursor

  func syncCursor() throws(StoreError) -> String? {
    try read { db in
      try db.query("SELECT value FROM sync_state WHERE key = 'conversations'") { $0.string(0) }
        .first
    }
  }

  func saveSyncCursor(_ cursor: String, db: Database) throws {
    try db.run(
      """
      INSERT INTO sync_state (key, value) VALUES ('conversations', ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value
      """, cursor)
  }
}
