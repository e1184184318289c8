import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// Search in every script on the device (`Tests/Fixtures/search/cases.json`, the same table the
/// server's search is tested with): CJK and Thai by any substring, one and two characters
/// included; Latin words with case and diacritics folded; emoji; mixed queries.
@Suite struct StoreSearchScriptsTests {
  @Test(arguments: SearchCases.load().cases)
  func eachCaseFindsItsMessagesNewestFirst(_ searchCase: SearchCases.Case) async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    let messages = SearchCases.load().messages
    try await f.store.saveServerMessages(
      messages.enumerated().map { f.serverMessage($0.offset + 1, text: $0.element) },
      in: f.chat, me: f.me)
    let hits = try await f.store.search(searchCase.query, limit: 50)
    #expect(hits.map(\.message.sequence) == searchCase.expect, "\(searchCase.why)")
    for hit in hits {
      #expect(hit.markedSnippet.contains(SearchMarker.open), "a hit shows what matched")
    }
  }

  @Test func theUnspacedIndexFollowsEditsAndDeletesOfTheText() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, text: "北京で会いましょう"), f.serverMessage(2, text: "no CJK here")],
      in: f.chat, me: f.me)
    #expect(try await f.store.search("北京", limit: 10).map(\.message.sequence) == [1])
    try await f.store.write { tx in
      try tx.db.run("UPDATE messages SET text = '上海で会いましょう' WHERE sequence = 1")
      try tx.db.run("UPDATE messages SET text = '北京 after all' WHERE sequence = 2")
    }
    #expect(try await f.store.search("北京", limit: 10).map(\.message.sequence) == [2])
    #expect(try await f.store.search("上海", limit: 10).map(\.message.sequence) == [1])
    try await f.store.write { tx in try tx.db.run("DELETE FROM messages WHERE sequence = 2") }
    #expect(try await f.store.search("北京", limit: 10).isEmpty)
    let indexed = try await f.store.read { db in
      try db.scalarInt("SELECT count(*) FROM message_search_unspaced")
    }
    #expect(indexed == 1, "only the message with unspaced text is in the trigram index")
  }
}
