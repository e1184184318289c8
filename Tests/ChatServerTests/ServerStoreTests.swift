import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Support
import Testing

@testable import ChatServer

@Suite struct ServerStoreTests {
  @Test func aFileStoreIsOwnerOnlyWALAndSynchronousFull() async throws {
    let folder = try TemporaryFolder()
    let executor = ThreadExecutor(name: "test.store")
    defer { executor.shutdown() }
    let store = try ServerStore(.dataFolder(folder.path), executor: executor)
    let settings = try await store.withDatabase { db in
      (
        try db.query("PRAGMA journal_mode") { $0.string(0) },
        try db.query("PRAGMA synchronous") { $0.int(0) }
      )
    }
    #expect(settings.0 == ["wal"])
    #expect(settings.1 == [2], "2 is FULL")
    let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/chat.sqlite")
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test func acknowledgedMessagesSurviveARestartAndSequencesContinue() async throws {
    let folder = try TemporaryFolder()
    let location = ServerStore.Location.dataFolder(folder.path)
    let clock = ManualClock()
    var random = SplitMix64(seed: 5)
    let key = SigningKey.generate(using: &random)
    let configuration = ServerConfiguration(devMode: true, rateLimit: nil, signingKey: key)
    let conversation: String
    let alice: Session
    do {
      let server = try TestServer(configuration: configuration, location: location, clock: clock)
      alice = try await server.login("alice")
      conversation = try await server.createConversation(by: alice, with: ["bob"])
      for index in 1...3 { _ = try await server.send("m\(index)", to: conversation, as: alice) }
    }
    let restarted = try TestServer(
      configuration: configuration, location: location, seed: 2, clock: clock)
    let page = await restarted.messages(in: conversation, as: alice)
    #expect(page.sequences == [1, 2, 3])
    #expect(page.items.last?["text"] as? String == "m3")
    let next = try await restarted.send("m4", to: conversation, as: alice)
    #expect(next.object["sequence"] as? Int == 4)
    let applied = try await restarted.store.withDatabase { try Migrator.appliedIdentifiers(in: $0) }
    #expect(applied == ServerStore.migrator.identifiers)
  }

  @Test func aDatabaseFromANewerVersionIsRefused() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    do {
      let db = try Database(.file(path))
      try ServerStore.migrator.migrate(db)
      try db.run("INSERT INTO schema_migrations (identifier) VALUES ('v99')")
    }
    let executor = ThreadExecutor(name: "test.newer")
    defer { executor.shutdown() }
    #expect(throws: MigrationError.unknownMigrations(["v99"])) {
      try ServerStore(.file(path: path), executor: executor)
    }
  }

  @Test func theSchemaHoldsTheIdempotencyAndSequenceKeys() async throws {
    let executor = ThreadExecutor(name: "test.schema")
    defer { executor.shutdown() }
    let store = try ServerStore(.memory, executor: executor)
    let indexes = try await store.withDatabase { db in
      try db.query(
        """
        SELECT group_concat(ii.name, ',') FROM sqlite_master AS m, pragma_index_list(m.name) AS il,
          pragma_index_info(il.name) AS ii
        WHERE m.name = 'messages' AND il."unique" = 1 GROUP BY il.name ORDER BY 1
        """
      ) { $0.string(0) }
    }
    #expect(
      indexes == ["conversation_id,sender_id,client_message_key", "conversation_id,sequence"])
  }
}
