import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatServer

/// The server database a released version made (`Tests/Fixtures/v1/server.sqlite`: alice, bob
/// and carol, the group "Sunday hike" with 3 messages read by everyone, the direct "Lunch" with
/// 2), served by today's code through the API: every row must come through every migration.
@Suite struct ServerSchemaMigrationTests {
  private func serveV1() throws -> (TemporaryFolder, TestServer) {
    try serve("v1")
  }

  private func serve(_ version: String) throws -> (TemporaryFolder, TestServer) {
    let folder = try TemporaryFolder()
    try SchemaFixtures.copy(version, "server.sqlite", to: folder.path + "/chat.sqlite")
    let server = try TestServer(location: .dataFolder(folder.path))
    return (folder, server)
  }

  private func conversations(_ server: TestServer, as session: Session) async throws
    -> [String: [String: Any]]
  {
    let response = await server.request("GET", "/v1/conversations", token: session.accessToken)
    #expect(response.status == 200)
    let items = try #require(response.object["items"] as? [[String: Any]])
    return Dictionary(uniqueKeysWithValues: items.map { ($0["title"] as? String ?? "", $0) })
  }

  @Test func theV1FixtureServesEveryConversationAndMessage() async throws {
    let (folder, server) = try serveV1()
    defer { withExtendedLifetime(folder) {} }
    let alice = try await server.login("alice")
    let list = try await conversations(server, as: alice)
    #expect(list.keys.sorted() == ["Lunch", "Sunday hike"])
    let group = try #require(list["Sunday hike"]?["id"] as? String)
    #expect((list["Sunday hike"]?["memberIds"] as? [String]) == ["alice", "bob", "carol"])
    let page = await server.messages(in: group, as: alice)
    #expect(page.sequences == [1, 2, 3])
    #expect(
      page.items.map { $0["text"] as? String } == [
        "Meet at the trailhead at nine", "Bringing coffee for everyone",
        "Café au lait for me, merci",
      ])
    let lunch = try #require(list["Lunch"]?["id"] as? String)
    let carol = try await server.login("carol")
    #expect(await server.messages(in: lunch, as: carol).status == 404, "carol is not in Lunch")
  }

  /// `Tests/Fixtures/v2/`: bob's edit (group sequence 4) and his deleted message in "Lunch".
  @Test func theV2FixtureServesItsEditAndTombstone() async throws {
    let (folder, server) = try serve("v2")
    defer { withExtendedLifetime(folder) {} }
    let alice = try await server.login("alice")
    let list = try await conversations(server, as: alice)
    let group = try #require(list["Sunday hike"]?["id"] as? String)
    let page = await server.messages(in: group, as: alice)
    #expect(page.sequences == [1, 2, 3, 4])
    #expect(page.items.map { $0["kind"] as? String } == ["message", "message", "message", "edit"])
    #expect(page.items[1]["text"] as? String == "Bringing coffee and tea for everyone")
    #expect(page.items[1]["editedAt"] is String)
    let lunch = try #require(list["Lunch"]?["id"] as? String)
    let lunchPage = await server.messages(in: lunch, as: alice)
    #expect(
      lunchPage.items.map { $0["kind"] as? String } == ["message", "message", "message", "delete"])
    #expect(lunchPage.items.map { $0["deleted"] as? Bool } == [false, false, true, false])
    #expect(lunchPage.items[2]["text"] as? String == "")
    let data = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/chat.sqlite"))
    #expect(data.range(of: Data("Wrong chat".utf8)) == nil)
  }

  /// v2 kept no ranges and no creator: its members have been in since the start, and the
  /// group changes like any other after the migration.
  @Test func aV2GroupChangesMembersAfterTheMigration() async throws {
    let (folder, server) = try serve("v2")
    defer { withExtendedLifetime(folder) {} }
    let alice = try await server.login("alice")
    let list = try await conversations(server, as: alice)
    let group = try #require(list["Sunday hike"]?["id"] as? String)
    #expect((list["Sunday hike"]?["visible"] as? [[Any]])?.first?.first as? Int == 1)
    #expect(list["Sunday hike"]?["membership"] as? String == "member")
    #expect(list["Sunday hike"]?["createdBy"] == nil, "v2 did not record it")
    let added = await server.request(
      "POST", "/v1/conversations/\(group)/members", token: alice.accessToken,
      body: #"{"clientMessageId":"6f1c1c7e-1d0a-4b7e-9a51-0d7c2f1e3a10","add":["dave"]}"#)
    #expect(added.status == 201)
    #expect(added.object["sequence"] as? Int == 5)
    let dave = try await server.login("dave")
    #expect(await server.messages(in: group, as: dave).sequences == [5])
    // With no creator recorded, the right is the longest member's: all since 1, so alice.
    let removed = await server.request(
      "POST", "/v1/conversations/\(group)/members", token: alice.accessToken,
      body: #"{"clientMessageId":"6f1c1c7e-1d0a-4b7e-9a51-0d7c2f1e3a11","remove":["carol"]}"#)
    #expect(removed.status == 201)
  }

  @Test func theV1ReceiptsAndSequencesCarryOn() async throws {
    let (folder, server) = try serveV1()
    defer { withExtendedLifetime(folder) {} }
    let alice = try await server.login("alice")
    let group = try #require(
      try await conversations(server, as: alice)["Sunday hike"]?["id"] as? String)
    let receipts = await server.request(
      "GET", "/v1/conversations/\(group)/receipts", token: alice.accessToken)
    let members = try #require(receipts.object["members"] as? [[String: Any]])
    #expect(
      members.map { "\($0["userId"] ?? ""):\($0["readUpTo"] ?? "")" } == [
        "alice:3", "bob:3", "carol:3",
      ])
    let next = try await server.send("Running ten minutes late", to: group, as: alice)
    #expect(next.status == 201)
    #expect(next.object["sequence"] as? Int == 4)
    // An idempotent retry of a message v1 stored still finds it.
    let clientID = try #require(
      await server.messages(in: group, as: alice).items.first?["clientMessageId"] as? String)
    let retry = try await server.send(
      "Meet at the trailhead at nine", to: group, as: alice, clientMessageId: clientID)
    #expect(retry.status == 200)
    #expect(retry.object["sequence"] as? Int == 1)
  }

  @Test func v1MessagesBecomeItemsThatCanBeEditedAndDeleted() async throws {
    let (folder, server) = try serveV1()
    defer { withExtendedLifetime(folder) {} }
    let bob = try await server.login("bob")
    let group = try #require(
      try await conversations(server, as: bob)["Sunday hike"]?["id"] as? String)
    let page = await server.messages(in: group, as: bob)
    #expect(page.items.map { $0["kind"] as? String } == ["message", "message", "message"])
    #expect(page.items.map { $0["deleted"] as? Bool } == [false, false, false])
    let bobsMessage = try #require(page.items[1]["clientMessageId"] as? String)
    let edit = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "edit", "target": bobsMessage,
        "text": "Bringing tea for everyone",
      ], to: group, as: bob)
    #expect(edit.status == 201)
    #expect(edit.object["sequence"] as? Int == 4)
    let delete = try await server.post(
      ["clientMessageId": UUID().uuidString, "kind": "delete", "target": bobsMessage], to: group,
      as: bob)
    #expect(delete.status == 201)
    let after = await server.messages(in: group, as: bob)
    #expect(
      after.items.map { $0["text"] as? String } == [
        "Meet at the trailhead at nine", "", "Café au lait for me, merci", "", "",
      ])
    let list = try await conversations(server, as: bob)
    let last = try #require(list["Sunday hike"]?["lastMessage"] as? [String: Any])
    #expect(last["sequence"] as? Int == 3, "v1's lastMessage carried over")
  }

  @Test(arguments: [("v1", ["v1"]), ("v2", ["v1", "v2-items"])])
  func eachFixtureRecordsExactlyTheMigrationsOfItsVersion(version: String, applied: [String])
    async throws
  {
    let folder = try TemporaryFolder()
    let path = try SchemaFixtures.copy(version, "server.sqlite", to: folder.path + "/chat.sqlite")
    let before = try Database(.file(path))
    #expect(try Migrator.appliedIdentifiers(in: before) == applied)
    before.close()
    let server = try TestServer(location: .dataFolder(folder.path))
    let after = try await server.store.withDatabase { try Migrator.appliedIdentifiers(in: $0) }
    #expect(after == ServerStore.migrator.identifiers)
  }
}

/// Every committed server fixture (`SchemaFixtures.versions`), served by today's code; and the
/// newest one was made by today's schema.
@Suite struct ServerFixturesTests {
  @Test(arguments: SchemaFixtures.versions)
  func everyFixtureServesItsConversationsAndMessages(version: String) async throws {
    let folder = try TemporaryFolder()
    try SchemaFixtures.copy(version, "server.sqlite", to: folder.path + "/chat.sqlite")
    let server = try TestServer(location: .dataFolder(folder.path))
    let alice = try await server.login("alice")
    let response = await server.request("GET", "/v1/conversations", token: alice.accessToken)
    let items = try #require(response.object["items"] as? [[String: Any]])
    #expect(items.compactMap { $0["title"] as? String }.sorted() == ["Lunch", "Sunday hike"])
    let group = try #require(items.first { $0["title"] as? String == "Sunday hike" }?["id"])
    let page = await server.messages(in: try #require(group as? String), as: alice)
    #expect(page.sequences.prefix(3) == [1, 2, 3])
    #expect(page.items.first?["text"] as? String == "Meet at the trailhead at nine")
  }

  @Test func theNewestFixtureHoldsEveryMigrationOfTodaysCode() throws {
    let newest = try #require(SchemaFixtures.versions.last)
    let folder = try TemporaryFolder()
    let path = try SchemaFixtures.copy(newest, "server.sqlite", to: folder.path + "/chat.sqlite")
    let db = try Database(.file(path))
    defer { db.close() }
    #expect(
      try Migrator.appliedIdentifiers(in: db) == ServerStore.migrator.identifiers,
      "\(SchemaFixtures.newFixtureAdvice)")
  }
}
