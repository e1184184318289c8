import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Support
import Testing

@testable import ChatData

/// The client database a released version made (`Tests/Fixtures/v1/client-alice.sqlite`: alice's
/// device with two conversations, messages both ways, receipts, one outbox row), opened by
/// today's code: every row and the search index must come through every migration.
@Suite struct ClientSchemaMigrationTests {
  /// Opens a copy of the v1 fixture (the committed file is never written).
  private func openV1() async throws -> (StoreFixtureFile, MessageStore) {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy("v1", "client-alice.sqlite", to: file.path)
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    return (file, store)
  }

  @Test func theV1FixtureKeepsEveryConversationMessageAndReceipt() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    let session = try #require(try await store.session())
    #expect(session.userID == UserID("alice"))
    let rows = try await store.listRows(me: UserID("alice"))
    #expect(rows.map(\.conversation.title).sorted() == ["Lunch", "Sunday hike"])
    let group = try #require(rows.first { $0.conversation.title == "Sunday hike" })
    #expect(group.conversation.memberIDs.map(\.rawValue).sorted() == ["alice", "bob", "carol"])
    let snapshot = try await store.snapshot(group.conversation.id, limit: 50)
    #expect(
      snapshot.messages.map(\.text) == [
        "Meet at the trailhead at nine", "Bringing coffee for everyone",
        "Café au lait for me, merci", "Running ten minutes late",
      ])
    #expect(snapshot.messages.prefix(3).map(\.sequence) == [1, 2, 3])
    let receipts = try #require(snapshot.receipts)
    #expect(receipts.readUpTo == 3, "bob and carol read the group")
    let memberReceipts = try await store.read { db in
      try db.query(
        "SELECT user_id, read_up_to FROM member_receipts WHERE conversation_id = ? ORDER BY user_id",
        group.conversation.id.rawValue
      ) { "\($0.string(0)):\($0.int(1))" }
    }
    #expect(memberReceipts.contains("bob:3") && memberReceipts.contains("carol:3"))
  }

  @Test func theV1OutboxRowIsStillWaitingToBeSent() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    let unsent = try await store.unsent()
    #expect(unsent.map(\.text) == ["Running ten minutes late"])
    #expect(unsent.first?.sequence == nil)
    #expect(try await store.outboxCount() == 1)
  }

  /// v1 may have posted its queued row already (its reply lost): v3 counts it as started, so
  /// the retry keeps the body and an edit is queued behind it, never made in place.
  @Test func theV1OutboxRowCountsAsPostedSoAnEditOfItIsQueued() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    let row = try #require(try await store.unsent().first)
    let outcome = try await store.editOwn(
      row.clientID, in: row.conversationID, sender: row.senderID, text: "Running 20 late",
      id: MessageID(UUID()), at: Date())
    #expect(outcome == .queued)
    let next = try #require(try await store.startPosting(in: row.conversationID))
    #expect(next.record.clientID == row.clientID)
    #expect(next.record.text == "Running ten minutes late")
    #expect(next.isFirst == false)
    #expect(try await store.outboxCount() == 2)
  }

  @Test func theV1SearchIndexStillFindsEveryMessage() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    #expect(
      try await store.search("lighthouse", limit: 10).map(\.message.text) == [
        "Did you see the lighthouse photos?"
      ])
    // Diacritics folded as v1 indexed them.
    #expect(try await store.search("cafe", limit: 10).map(\.conversationTitle) == ["Sunday hike"])
    #expect(try await store.search("late", limit: 10).count == 1, "the unsent message too")
    let integrity = try await store.read { db in
      try db.query("INSERT INTO message_search (message_search) VALUES ('integrity-check')") {
        _ in 0
      }
    }
    #expect(integrity.isEmpty)
  }

  @Test func aV1MessageTakesAnEditAndADeleteWithItsSearchIndex() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    let me = UserID("alice")
    let hit = try #require(try await store.search("lighthouse", limit: 10).first)
    let message = hit.message
    let next = try #require(try await store.newestSequence(in: message.conversationID)) + 1
    var edit = message
    edit.clientID = MessageID(rawValue: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a99")!
    edit.serverID = "edit-1"
    edit.sequence = next
    edit.sentAt = message.sentAt.addingTimeInterval(60)
    edit.kind = .edit
    edit.target = message.clientID
    edit.text = "Did you see the harbour photos?"
    try await store.saveServerMessages([edit], in: message.conversationID, me: me)
    #expect(try await store.search("lighthouse", limit: 10).isEmpty)
    #expect(
      try await store.search("harbour", limit: 10).map(\.message.clientID) == [message.clientID])
    var delete = edit
    delete.clientID = MessageID(rawValue: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a98")!
    delete.serverID = "delete-1"
    delete.sequence = next + 1
    delete.kind = .delete
    delete.text = ""
    try await store.saveServerMessages([delete], in: message.conversationID, me: me)
    #expect(try await store.search("harbour", limit: 10).isEmpty)
    let shown = try await store.snapshot(message.conversationID, limit: 50).messages
    #expect(shown.map(\.isDeleted) == [true, false])
    #expect(try await store.search("best", limit: 10).count == 1, "the rest of the index is intact")
  }

  /// v7-media: the rows v1 made carry no media (the outbox row posts as text alone), and a
  /// message with media from the server keeps it, thumbnail and all, until deleted.
  @Test func aV1DatabaseTakesMessagesWithMediaAndItsOutboxRowStaysText() async throws {
    let (file, store) = try await openV1()
    defer { withExtendedLifetime(file) {} }
    let me = UserID("alice")
    let queued = try #require(try await store.unsent().first)
    #expect(queued.media == nil && queued.uploadedBytes == nil)
    #expect(
      try await store.upload(of: queued.clientID, in: queued.conversationID, sender: me) == nil)
    let hit = try #require(try await store.search("lighthouse", limit: 10).first)
    let conversation = hit.message.conversationID
    var photo = hit.message
    photo.clientID = MessageID(rawValue: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a97")!
    photo.serverID = "photo-1"
    photo.sequence = try #require(try await store.newestSequence(in: conversation)) + 1
    photo.text = "the lighthouse"
    photo.media = Media(
      key: "k1", kind: .image, contentType: "image/jpeg", byteCount: 1_234,
      sha256: String(repeating: "a", count: 64), width: 1_600, height: 1_200,
      thumbnail: "AAEC")
    try await store.saveServerMessages([photo], in: conversation, me: me)
    let held = try #require(try await store.media(of: photo.clientID, in: conversation))
    #expect(held.media == photo.media && held.file == nil && held.sender == photo.senderID)
    let shown = try #require(
      try await store.snapshot(conversation, limit: 50).messages.first {
        $0.clientID == photo.clientID
      })
    #expect(RecordMapping.message(shown, receipts: nil, me: me).media?.thumbnail == [0, 1, 2])
    var delete = photo
    delete.clientID = MessageID(rawValue: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a96")!
    delete.serverID = "delete-2"
    delete.sequence = (photo.sequence ?? 0) + 1
    delete.kind = .delete
    delete.target = photo.clientID
    delete.media = nil
    try await store.saveServerMessages([delete], in: conversation, me: me)
    #expect(try await store.media(of: photo.clientID, in: conversation)?.media == nil)
  }

  @Test(arguments: [("v1", ["v1"]), ("v2", ["v1", "v2-items"])])
  func eachFixtureRecordsExactlyTheMigrationsOfItsVersion(version: String, applied: [String])
    async throws
  {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy(version, "client-alice.sqlite", to: file.path)
    let before = try Database(.file(file.path))
    #expect(try Migrator.appliedIdentifiers(in: before) == applied)
    before.close()
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let after = try await store.read { db in try Migrator.appliedIdentifiers(in: db) }
    #expect(after == MessageStore.migrator.identifiers)
  }

  /// The v2 fixture (`Tests/Fixtures/v2/`: the v1 life plus bob's edit in the group and his
  /// deleted message in "Lunch"), opened by today's code.
  @Test func theV2FixtureKeepsItsEditAndTombstoneAndItsQueuedRowCountsAsPosted() async throws {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy("v2", "client-alice.sqlite", to: file.path)
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let rows = try await store.listRows(me: UserID("alice"))
    let group = try #require(rows.first { $0.conversation.title == "Sunday hike" })
    let lunch = try #require(rows.first { $0.conversation.title == "Lunch" })
    let groupMessages = try await store.snapshot(group.conversation.id, limit: 50).messages
    let coffee = try #require(groupMessages.first { $0.sequence == 2 })
    #expect(coffee.text == "Bringing coffee and tea for everyone")
    #expect(coffee.editedAt != nil)
    #expect(groupMessages.count == 4, "three sent and the queued one; the edit is no row")
    let lunchMessages = try await store.snapshot(lunch.conversation.id, limit: 50).messages
    #expect(lunchMessages.map(\.isDeleted) == [false, false, true])
    #expect(try await store.search("tea", limit: 10).count == 1)
    #expect(try await store.search("coffee", limit: 10).map(\.message.sequence) == [2])
    let queued = try #require(try await store.unsent().first)
    #expect(queued.text == "Running ten minutes late")
    let next = try #require(try await store.startPosting(in: queued.conversationID))
    #expect(next.isFirst == false, "v2 may have posted it: the retry keeps its body")
    let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
    #expect(data.range(of: Data("Wrong chat".utf8)) == nil)
  }

  /// A device from before pins kept no unpin flag on the pin items it held: the migration
  /// leaves them behind each conversation's served list (`pinned_as_of` at its last sequence)
  /// and forgets the sync cursor, so the next `/v1/sync` brings every conversation's pins.
  @Test func aV16DeviceSyncsEveryConversationAgainToLearnItsPins() async throws {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy("v16", "client-alice.sqlite", to: file.path)
    let before = try Database(.file(file.path))
    #expect(try SettingsTable.syncCursor(db: before) != nil)
    before.close()
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let (cursor, behind, conversations) = try await store.read { db in
      (
        try SettingsTable.syncCursor(db: db),
        try db.scalarInt("SELECT count(*) FROM conversations WHERE pinned_as_of != last_sequence"),
        try db.scalarInt("SELECT count(*) FROM conversations WHERE last_sequence > 0")
      )
    }
    #expect(cursor == nil)
    #expect(behind == 0)
    #expect(conversations == 2)
  }

  /// A device from before blocking (fixture v20) asks `/v1/sync` from scratch, so that the
  /// server answers its block list: an older app may have synced past a block it ignored.
  @Test func aV20DeviceSyncsFromScratchToLearnItsBlockList() async throws {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy("v20", "client-alice.sqlite", to: file.path)
    let before = try Database(.file(file.path))
    #expect(try SettingsTable.syncCursor(db: before) != nil)
    before.close()
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    #expect(try await store.read { try SettingsTable.syncCursor(db: $0) } == nil)
    #expect(try await store.blockedUsers() == [])
  }
}

/// A temporary database path and the store executor that opens it.
final class StoreFixtureFile {
  let folder: TemporaryFolder
  let executor = ThreadExecutor(name: "test.store")
  var path: String { folder.path + "/chat.sqlite" }

  init() throws {
    folder = try TemporaryFolder()
  }

  deinit {
    executor.shutdown()
  }
}

/// Every committed client fixture (`SchemaFixtures.versions`, found on disk, so a new one is
/// tested without editing this file), opened by today's code: its rows, search index and
/// outbox come through; and the newest one was made by today's schema.
@Suite struct ClientFixturesTests {
  @Test(arguments: SchemaFixtures.versions)
  func everyFixtureKeepsItsRowsSearchIndexAndOutbox(version: String) async throws {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy(version, "client-alice.sqlite", to: file.path)
    let before = try Database(.file(file.path))
    let rowsBefore = try before.scalarInt("SELECT count(*) FROM messages")
    before.close()
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let rowsAfter = try await store.read { db in try db.scalarInt("SELECT count(*) FROM messages") }
    #expect(rowsAfter == rowsBefore)
    #expect(
      try await store.listRows(me: UserID("alice")).map(\.conversation.title).sorted() == [
        "Lunch", "Sunday hike",
      ])
    #expect(try await store.unsent().map(\.text) == ["Running ten minutes late"])
    #expect(try await store.search("lighthouse", limit: 10).count == 1)
    #expect(try await store.search("trailhead nine", limit: 10).count == 1)
    try await store.read { db in
      // FTS5 compares each index with its content and fails the statement on a difference.
      try db.run("INSERT INTO message_search (message_search) VALUES ('integrity-check')")
      try db.run(
        "INSERT INTO message_search_unspaced (message_search_unspaced) VALUES ('integrity-check')")
    }
  }

  @Test func theNewestFixtureHoldsEveryMigrationOfTodaysCode() throws {
    let newest = try #require(SchemaFixtures.versions.last)
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy(newest, "client-alice.sqlite", to: file.path)
    let db = try Database(.file(file.path))
    defer { db.close() }
    #expect(
      try Migrator.appliedIdentifiers(in: db) == MessageStore.migrator.identifiers,
      "\(SchemaFixtures.newFixtureAdvice)")
  }
}
