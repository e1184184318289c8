import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// Retention (seed 003: "keep everything locally vs a window"): pruning keeps unsent, unread
/// and newest rows and a consistent search index, remembers where local history begins (so
/// paging back asks the server), and a search on a pruned device says it may be incomplete
/// while the server's search finds the old message.
@Suite(.timeLimit(.minutes(3)))
struct EngineRetentionTests {
  /// alice holds bob's messages 1…`count` of `p.chat` ("message n"), all read unless
  /// `readUpTo` says otherwise.
  func pairWithHistory(_ count: Int, readUpTo: Int? = nil) async throws -> Pair {
    let p = try await Pair.make()
    for n in 1...count { _ = try await p.world.post("message \(n)", in: p.chat, as: "bob") }
    await p.world.settle()
    _ = try await p.alice.engine.sync()
    try await p.alice.messages.markRead(upTo: readUpTo ?? count, in: p.chat)
    await p.world.settle()
    return p
  }

  func heldSequences(_ device: TestDevice, _ chat: ConversationID) async throws -> [Int?] {
    try await device.engine.context.store.read { db in
      try db.query(
        "SELECT sequence FROM messages WHERE conversation_id = ? ORDER BY sequence IS NULL, sequence",
        chat.rawValue
      ) { $0.optionalInt(0) }
    }
  }

  func searchIndexIsConsistent(_ device: TestDevice) async throws {
    try await device.engine.context.store.read { db in
      try db.run("INSERT INTO message_search (message_search) VALUES ('integrity-check')")
      try db.run(
        "INSERT INTO message_search_unspaced (message_search_unspaced) VALUES ('integrity-check')")
    }
  }

  @Test func pruningKeepsTheWindowUnsentRowsAndAConsistentSearchIndex() async throws {
    let p = try await pairWithHistory(10)
    p.alice.network.isOnline = false
    _ = try await p.alice.messages.send("waiting to go", in: p.chat)
    try await p.alice.engine.setRetention(Retention(messagesPerConversation: 3))
    let report = try await p.alice.engine.maintain()
    #expect(report.prunedItems == 7)
    #expect(report.prunedConversations == 1)
    #expect(try await heldSequences(p.alice, p.chat) == [8, 9, 10, nil], "the unsent row stays")
    try await searchIndexIsConsistent(p.alice)
    #expect(try await p.alice.list.search("message", limit: 50).hits.count == 3)
    #expect(try await p.alice.list.search("waiting", limit: 50).hits.count == 1)
    #expect(try await p.alice.engine.maintain().prunedItems == 0, "a second run has nothing to do")
    await p.close()
  }

  @Test func unreadMessagesAreNotPruned() async throws {
    let p = try await pairWithHistory(10, readUpTo: 5)
    try await p.alice.engine.setRetention(Retention(messagesPerConversation: 2))
    _ = try await p.alice.engine.maintain()
    #expect(try await heldSequences(p.alice, p.chat) == [6, 7, 8, 9, 10])
    await p.close()
  }

  @Test func aWindowInDaysFollowsTheEnginesClock() async throws {
    let p = try await pairWithHistory(3)
    await p.world.advance(by: .seconds(3 * 86_400))
    for n in 4...5 { _ = try await p.world.post("message \(n)", in: p.chat, as: "bob") }
    await p.world.settle()
    _ = try await p.alice.engine.sync()
    try await p.alice.messages.markRead(upTo: 5, in: p.chat)
    try await p.alice.engine.setRetention(Retention(messageDays: 2))
    #expect(try await p.alice.engine.maintain().prunedItems == 3)
    #expect(try await heldSequences(p.alice, p.chat) == [4, 5])
    await p.close()
  }

  @Test func pagingBackPastThePrunedWindowAsksTheServer() async throws {
    let p = try await pairWithHistory(10)
    try await p.alice.engine.setRetention(Retention(messagesPerConversation: 3))
    _ = try await p.alice.engine.maintain()
    let before = p.alice.network.requests.filter { $0.path.hasSuffix("/messages") }.count
    let more = try await p.alice.messages.loadOlder(in: p.chat)
    let pages = p.alice.network.requests.filter { $0.path.hasSuffix("/messages") }
    #expect(pages.count == before + 1, "the device asks the server for what it pruned")
    #expect(pages.last?.query["before"] == "8")
    #expect(more == false)
    #expect(try await heldSequences(p.alice, p.chat) == Array(1...10))
    await p.close()
  }

  @Test func aPrunedDeviceSaysItsSearchMayBeIncompleteAndTheServerFindsTheOldMessage()
    async throws
  {
    let p = try await pairWithHistory(10)
    let whole = try await p.alice.list.search("message 2", limit: 50)
    #expect(whole.mayBeIncomplete == false, "alice holds every message from the first")
    #expect(whole.hits.map(\.sequence) == [2])
    try await p.alice.engine.setRetention(Retention(messagesPerConversation: 3))
    _ = try await p.alice.engine.maintain()
    let local = try await p.alice.list.search("message 2", limit: 50)
    #expect(local.hits.isEmpty)
    #expect(local.mayBeIncomplete)
    let server = try await p.alice.list.searchServer("message 2", limit: 50, before: nil)
    #expect(server.hits.map(\.sequence) == [2])
    #expect(server.hits.first?.conversationTitle == "Hiking")
    #expect(
      server.hits.first?.snippet.parts.contains { $0.isMatch && $0.text == "message" } == true)
    #expect(server.nextCursor == nil)
    await p.close()
  }

  @Test func theRetentionSettingIsKeptAndReadBack() async throws {
    let p = try await Pair.make()
    #expect(await p.alice.engine.retention() == .everything)
    let setting = Retention(messageDays: 365, messagesPerConversation: 5_000, mediaDays: 30)
    try await p.alice.engine.setRetention(setting)
    #expect(await p.alice.engine.retention() == setting)
    #expect(Retention(setting.description) == setting)
    #expect(Retention("days=0") == nil)
    #expect(Retention("weeks=3") == nil)
    await p.close()
  }
}
