import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The writer (`MessageStore`): one connection, every write one transaction, observers told
/// after the commit and only then.
@Suite struct MessageStoreTests {
  @Test func observersHearEachCommittedWriteOnce() async throws {
    let f = try await StoreFixture.make()
    let changes = await f.store.changes()
    var iterator = changes.makeAsyncIterator()
    try await f.addConversation(lastSequence: 0)
    #expect(await iterator.next() == StoreChange(conversations: [f.chat]))
    try await f.store.saveServerMessages(
      [f.serverMessage(1), f.serverMessage(2)], in: f.chat, me: f.me)
    #expect(await iterator.next() == StoreChange(conversations: [f.chat]))
    let other = ConversationID("c2")
    try await f.addConversation(other)
    #expect(await iterator.next() == StoreChange(conversations: [other]))
  }

  /// A write is one transaction: one that fails (here at its second statement) leaves nothing
  /// of its first, and its observers hear nothing of what it touched; the next write is heard.
  @Test func aWriteThatFailsLeavesNothingAndTellsNoObserver() async throws {
    let f = try await StoreFixture.make()
    let changes = await f.store.changes()
    var iterator = changes.makeAsyncIterator()
    let chat = f.chat
    await #expect(throws: StoreError.self) {
      try await f.store.write { tx in
        try tx.db.run("INSERT INTO sync_state (key, value) VALUES ('k', 'v')")
        tx.touch(chat)
        try tx.db.run("INSERT INTO no_such_table VALUES (1)")
      }
    }
    #expect(try await f.store.setting("k") == nil)
    let other = ConversationID("c2")
    try await f.addConversation(other)
    #expect(await iterator.next() == StoreChange(conversations: [other]))
  }

  @Test func aReopenedFileKeepsEverythingAndTheSchemaIsRecorded() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "store-\(UUID().uuidString).sqlite"
    ).path
    do {
      let f = try await StoreFixture.make(.file(path))
      try await f.addConversation(lastSequence: 0)
      try await f.store.insertPending(f.pending(StoreFixture.id(1)), queuedAt: 0)
    }
    let f = try await StoreFixture.make(.file(path))
    #expect(try await f.store.unsent().count == 1)
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let db = try Database(.file(path))
    #expect(try Migrator.appliedIdentifiers(in: db) == MessageStore.migrator.identifiers)
  }
}
