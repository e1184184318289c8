import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// Search on the device (`SearchQuery`): words and prefixes with marked snippets, newest first
/// or by relevance, typed text never parsed as FTS5 syntax; and every script
/// (`Tests/Fixtures/search/cases.json`, the same table the server's search is tested with): CJK
/// and Thai by any substring, one and two characters included; Latin words with case and
/// diacritics folded; emoji; mixed queries.
@Suite struct SearchQueryTests {
  @Test func searchFindsWordsAndPrefixesWithMarkedSnippets() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages(
      [
        f.serverMessage(1, text: "Hiking on Sunday?"),
        f.serverMessage(2, text: "Café at noon"),
        f.serverMessage(3, text: "hike later"),
      ], in: f.chat, me: f.me)
    let hits = try await f.store.search("hik", limit: 10)
    #expect(hits.map(\.message.sequence) == [3, 1])
    #expect(hits[1].markedSnippet.contains("\u{2}Hiking\u{3}"))
    #expect(hits[0].conversationTitle == "Hiking")
    #expect(try await f.store.search("cafe", limit: 10).map(\.message.sequence) == [2])
    #expect(try await f.store.search("sunday hiking", limit: 10).count == 1)
  }

  @Test func searchOrdersByRelevanceOrNewestFirst() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages(
      [
        f.serverMessage(1, text: "trail trail trail"),
        f.serverMessage(
          2, text: "a long message that mentions the trail once among many other words"),
        f.serverMessage(3, text: "trail map"),
        f.serverMessage(4, text: "nothing to see"),
      ], in: f.chat, me: f.me)
    let ranked = try await f.store.search("trail", limit: 10, order: .relevance)
    #expect(ranked.map(\.message.sequence) == [1, 3, 2])
    #expect(ranked[0].markedSnippet.contains("\u{2}trail\u{3}"))
    let newest = try await f.store.search("trail", limit: 2, order: .newest)
    #expect(newest.map(\.message.sequence) == [3, 2])
  }

  @Test(arguments: ["", "  ", "***", "\"", "-- !?"])
  func aQueryWithNothingToSearchIsAClearError(query: String) async throws {
    let f = try await StoreFixture.make()
    await #expect(
      throws: StoreError.invalidQuery("type at least one letter, digit or emoji to search")
    ) {
      try await f.store.search(query, limit: 10)
    }
  }

  @Test(arguments: [
    "NEAR(a b)", "AND OR NOT (", "a\"b", "col:value", "x AND", "^start", "(unbalanced",
  ])
  func fts5SyntaxInAQueryIsSearchedAsWordsNotParsed(query: String) async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    let words = query.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, text: words.joined(separator: " ")), f.serverMessage(2, text: "other")],
      in: f.chat, me: f.me)
    #expect(try await f.store.search(query, limit: 10).map(\.message.sequence) == [1])
  }

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
