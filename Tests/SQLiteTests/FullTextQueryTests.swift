import Testing

@testable import SQLite

/// How typed text becomes search terms (`FullTextQuery`): words for `unicode61`, substrings of
/// unspaced scripts for `trigram`, prefixes, and what cannot be searched.
@Suite struct FullTextQueryTests {
  @Test func latinWordsAreWordsAndTheLastIsAPrefix() throws {
    let query = try FullTextQuery("Sunday hik")
    #expect(query.words == ["Sunday", "hik"])
    #expect(query.substrings.isEmpty)
    #expect(query.wordExpression == "\"Sunday\" \"hik\" *")
    #expect(query.trigramExpression == nil)
  }

  @Test func aStarMakesAnyWordAPrefix() throws {
    let query = try FullTextQuery("hik* sun")
    #expect(query.wordExpression == "\"hik\" * \"sun\" *")
  }

  @Test func cjkThaiAndEmojiAreSubstringsAndShortOnesAreScanned() throws {
    let query = try FullTextQuery("東京タワー 京 ข้าว 🥾 tokyo")
    #expect(query.words == ["tokyo"])
    #expect(query.substrings == ["東京タワー", "京", "ข้าว", "🥾"])
    #expect(query.trigramExpression == "\"東京タワー\" AND \"ข้าว\"")
    #expect(query.shortSubstrings == ["京", "🥾"])
  }

  @Test func aWordMixingScriptsIsOneSubstring() throws {
    let query = try FullTextQuery("Tokyo東京")
    #expect(query.words.isEmpty)
    #expect(query.substrings == ["Tokyo東京"])
  }

  @Test(arguments: ["", " ", "***", "?! -", "\"\""])
  func textWithNothingToSearchIsAnError(text: String) {
    #expect(throws: FullTextQuery.Invalid.self) { try FullTextQuery(text) }
  }

  @Test func tooLongIsAnErrorThatSaysTheLimit() {
    #expect(
      throws: FullTextQuery.Invalid(description: "the search is too long (at most 3 characters)")
    ) {
      try FullTextQuery("abcd", maximumLength: 3)
    }
  }

  @Test func quotesInATermCannotEndItsQuotedString() throws {
    // A quote is a separator; no term holds one, and each is quoted in the expression.
    let query = try FullTextQuery("a\"b OR c")
    #expect(query.wordExpression == "\"a\" \"b\" \"OR\" \"c\" *")
  }

  @Test func theSnippetMarksTheWholeWordTheQueryStarts() throws {
    let query = try FullTextQuery("cafe")
    #expect(
      query.markedSnippet(in: "Meet at the Café Rouge", open: "[", close: "]")
        == "Meet at the [Café] Rouge")
  }

  @Test func theSnippetIsCutAroundTheFirstSubstring() throws {
    let query = try FullTextQuery("京")
    let text = String(repeating: "a", count: 40) + "東京" + String(repeating: "b", count: 40)
    let snippet = query.markedSnippet(in: text, open: "[", close: "]", radius: 4)
    #expect(snippet == "…aaa東[京]bbbb…")
  }

  @Test func theGlobOfUnspacedTextMatchesWhatTheQueryCallsUnspaced() throws {
    let db = try Database(.memory)
    for (text, unspaced) in [
      ("東京", true), ("ไทย", true), ("서울", true), ("🥾 boots", true), ("Café", false),
      ("Ёлка", false), ("plain", false),
    ] {
      let matches = try db.scalarInt(
        "SELECT ? GLOB '\(FullTextQuery.unspacedGlob)'", text)
      #expect((matches == 1) == unspaced, "\(text)")
      #expect(FullTextQuery.isUnspaced(text) == unspaced, "\(text)")
    }
  }
}
