import ChatAPI
import Testing

/// API.md Part 3's rules that both sides apply the same way: what an emoji is, how a
/// message's reactions change, what a quote shows, which items a page `around` a sequence holds.
@Suite struct ReactionRuleTests {
  @Test(arguments: ["👍", "❤️", "👍🏽", "🇫🇷", "👨‍👩‍👧", "1️⃣", "😀"])
  func oneEmojiGraphemeIsAReaction(_ emoji: String) {
    #expect(Reactions.isEmoji(emoji))
  }

  @Test(arguments: ["", "a", "👍👍", "ok", " 👍", "👍 ", "\u{200D}", "é"])
  func anythingElseIsNot(_ text: String) {
    #expect(!Reactions.isEmoji(text))
  }

  /// At most 32 UTF-8 bytes: one grapheme of 32 is a reaction, one of 33 is not (marks that
  /// extend a grapheme, U+0301 of 2 bytes and U+FE0F of 3, grow it without splitting it).
  @Test func aGraphemeOf32BytesIsOneAndOf33IsNot() {
    let thirtyTwo = "👍" + String(repeating: "\u{0301}", count: 14)
    #expect(thirtyTwo.count == 1 && thirtyTwo.utf8.count == 32)
    #expect(Reactions.isEmoji(thirtyTwo))
    let thirtyThree = "👍\u{FE0F}" + String(repeating: "\u{0301}", count: 13)
    #expect(thirtyThree.count == 1 && thirtyThree.utf8.count == 33)
    #expect(!Reactions.isEmoji(thirtyThree))
  }

  @Test func reactionsKeepTheOrderEachEmojiFirstCameAndEachUsersOrder() throws {
    var reactions = Reactions()
    try reactions.apply("👍", by: "bob", remove: false)
    try reactions.apply("❤️", by: "carol", remove: false)
    try reactions.apply("👍", by: "carol", remove: false)
    #expect(
      reactions.groups == [
        ReactionGroup(emoji: "👍", userIds: ["bob", "carol"]),
        ReactionGroup(emoji: "❤️", userIds: ["carol"]),
      ])
    try reactions.apply("👍", by: "bob", remove: true)
    try reactions.apply("👍", by: "carol", remove: true)
    try reactions.apply("👍", by: "bob", remove: false)
    #expect(
      reactions.groups == [
        ReactionGroup(emoji: "❤️", userIds: ["carol"]),
        ReactionGroup(emoji: "👍", userIds: ["bob"]),
      ])
  }

  /// The hand-written reader gives what the `Codable` one gives, and refuses what it refuses.
  @Test func reactionsReadByHandEqualTheCodableReading() throws {
    let groups = [
      ReactionGroup(emoji: "👍", userIds: ["bob", "carol"]),
      ReactionGroup(emoji: "👨‍👩‍👧", userIds: ["d\"q"]), ReactionGroup(emoji: "❤️", userIds: []),
    ]
    let json = APICoding.json(groups)
    #expect(ReactionGroup.list(from: json) == groups)
    #expect(try APICoding.decode([ReactionGroup].self, from: json) == groups)
    #expect(ReactionGroup.list(from: .array([])) == [])
    for wrong in [
      #"{"emoji":"👍","userIds":[]}"#, #"[{"emoji":1,"userIds":[]}]"#, #"[{"emoji":"👍"}]"#,
      #"[{"emoji":"👍","userIds":[2]}]"#, #"[null]"#,
    ] {
      let parsed = try JSONParser.parse(wrong)
      #expect(ReactionGroup.list(from: parsed) == nil, "\(wrong)")
      #expect(throws: (any Error).self) { try APICoding.decode([ReactionGroup].self, from: parsed) }
    }
  }

  @Test func aReactionThatChangesNothingIsRefused() throws {
    var reactions = Reactions()
    try reactions.apply("👍", by: "bob", remove: false)
    #expect(throws: Reactions.Refusal.changesNothing) {
      try reactions.apply("👍", by: "bob", remove: false)
    }
    #expect(throws: Reactions.Refusal.changesNothing) {
      try reactions.apply("❤️", by: "bob", remove: true)
    }
    #expect(throws: Reactions.Refusal.changesNothing) {
      try reactions.apply("👍", by: "carol", remove: true)
    }
    #expect(reactions.groups == [ReactionGroup(emoji: "👍", userIds: ["bob"])])
  }

  @Test func twentyDistinctEmojiFitAndTheTwentyFirstIsRefused() throws {
    let emoji = Array("😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙😚🙂🤗🤩").map(String.init)
    #expect(emoji.count == 21)
    var reactions = Reactions()
    for one in emoji.prefix(20) { try reactions.apply(one, by: "bob", remove: false) }
    #expect(throws: Reactions.Refusal.tooManyEmoji) {
      try reactions.apply(emoji[20], by: "carol", remove: false)
    }
    // One already there still takes more users.
    try reactions.apply(emoji[0], by: "carol", remove: false)
    #expect(reactions.groups.count == 20)
  }
}

@Suite struct QuoteRuleTests {
  func message(
    _ text: String, media: Media? = nil, deleted: Bool = false, editedAt: String? = nil
  ) -> Item {
    Item(
      id: "s1", clientMessageId: "c1", conversationId: "k", senderId: "bob", text: text,
      sequence: 7, sentAt: "2026-12-01T10:00:00.000Z", kind: .message, media: media,
      editedAt: editedAt, deleted: deleted)
  }

  @Test func aQuoteShowsTheFirstHundredScalarsOfTheCurrentText() {
    let long = String(repeating: "é", count: 150)  // one scalar each when precomposed
    let quote = Quote(of: message(long))
    #expect(quote.text.unicodeScalars.count == 100)
    #expect(quote.senderId == "bob" && quote.sequence == 7 && !quote.deleted)
    #expect(quote.mediaKind == nil)
  }

  @Test func aQuoteCutsByScalarsNotBytesOrGraphemes() {
    let flags = String(repeating: "🇫🇷", count: 60)  // 2 scalars a grapheme
    #expect(Quote(of: message(flags)).text.unicodeScalars.count == 100)
  }

  /// The cut's two paths: a text of at most 100 bytes whole, a longer one sliced at the 100th
  /// scalar, by bytes or by scalars alike (a NUL is a scalar like any other).
  @Test func aQuoteKeepsAShortTextWholeAndSlicesALongOneAtItsHundredthScalar() {
    let hundred = String(repeating: "a", count: 99) + "\u{0}"
    #expect(Quote(of: message(hundred)).text == hundred)
    #expect(Quote(of: message(hundred + "b")).text == hundred)
    let sixty = String(repeating: "é", count: 60)  // 120 bytes, 60 scalars: whole
    #expect(Quote(of: message(sixty)).text == sixty)
    let mixed = String(repeating: "aé", count: 50) + "🦩"
    #expect(Quote(of: message(mixed)).text == String(repeating: "aé", count: 50))
  }

  @Test func aDeletedMessagesQuoteHasNoText() {
    let quote = Quote(of: message("", deleted: true))
    #expect(quote.deleted && quote.text.isEmpty && quote.mediaKind == nil)
  }

  @Test func aPhotosQuoteSaysSo() {
    let media = Media(
      key: "k", kind: .image, contentType: "image/jpeg", byteCount: 10, sha256: "00")
    #expect(Quote(of: message("caption", media: media)).mediaKind == .image)
  }
}

@Suite struct AroundRuleTests {
  /// Older candidates (the target or the nearest below it first, descending) and newer ones
  /// (ascending): the page takes the first older, then one newer, one older, … and fills from
  /// the other side at an end.
  @Test func thePageAlternatesFromTheTargetOutwards() {
    let page = AroundPage.pick(older: [50, 49, 48, 47], newer: [51, 52, 53], limit: 5)
    #expect(page.sequences == [48, 49, 50, 51, 52])
    #expect(page.hasMoreBefore && page.hasMoreAfter)
  }

  @Test func atTheNewestEndThePageFillsFromOlder() {
    let page = AroundPage.pick(older: [10, 9, 8, 7, 6, 5], newer: [11], limit: 5)
    #expect(page.sequences == [7, 8, 9, 10, 11])
    #expect(page.hasMoreBefore && !page.hasMoreAfter)
  }

  @Test func atTheOldestEndThePageFillsFromNewer() {
    let page = AroundPage.pick(older: [1], newer: [2, 3, 4, 5, 6, 7], limit: 4)
    #expect(page.sequences == [1, 2, 3, 4])
    #expect(!page.hasMoreBefore && page.hasMoreAfter)
  }

  @Test func aShortLogFitsWhole() {
    let page = AroundPage.pick(older: [3, 2, 1], newer: [4], limit: 50)
    #expect(page.sequences == [1, 2, 3, 4])
    #expect(!page.hasMoreBefore && !page.hasMoreAfter)
  }

  @Test func nothingAtOrBelowTheTargetStartsFromNewer() {
    let page = AroundPage.pick(older: [], newer: [9, 10, 11], limit: 2)
    #expect(page.sequences == [9, 10])
    #expect(!page.hasMoreBefore && page.hasMoreAfter)
  }

  @Test func afterTheTargetComesAnOlderItemFirst() {
    let page = AroundPage.pick(older: [5, 4], newer: [6], limit: 2)
    #expect(page.sequences == [4, 5])
    #expect(!page.hasMoreBefore && page.hasMoreAfter)
  }

  @Test func aLimitOfOneIsTheTargetAlone() {
    let page = AroundPage.pick(older: [5, 4], newer: [6], limit: 1)
    #expect(page.sequences == [5])
    #expect(page.hasMoreBefore && page.hasMoreAfter)
  }
}

@Suite struct PartThreeShapeTests {
  func keys(of item: Item) throws -> Set<String> {
    guard case .object(let object) = try JSONParser.parse(try APICoding.encode(item)) else {
      return []
    }
    return Set(object.members.map(\.key))
  }

  @Test func aMessageWritesItsReactionsOnlyOnceTheServerServesThem() throws {
    var item = Item(
      id: "s", clientMessageId: "c", conversationId: "k", senderId: "bob", text: "hi",
      sequence: 1, sentAt: "2026-12-01T10:00:00.000Z", kind: .message, deleted: false)
    #expect(try !keys(of: item).contains("reactions"))
    item.reactions = [ReactionGroup(emoji: "👍", userIds: ["alice"])]
    #expect(try keys(of: item).contains("reactions"))
    let back = try APICoding.decode(Item.self, from: try APICoding.encode(item))
    #expect(back.reactions == item.reactions)
    #expect(try !keys(of: item).contains("emoji"))
  }

  @Test func aReactionItemWritesItsEmojiAndRemove() throws {
    let item = Item(
      id: "s", clientMessageId: "c", conversationId: "k", senderId: "bob", text: "",
      sequence: 2, sentAt: "2026-12-01T10:00:00.000Z", kind: .reaction, target: "m",
      emoji: "👍", remove: true)
    let back = try APICoding.decode(Item.self, from: try APICoding.encode(item))
    #expect(back.emoji == "👍" && back.remove == true && back.kind == .reaction)
    #expect(try keys(of: item).isSuperset(of: ["emoji", "remove", "target"]))
    #expect(try !keys(of: item).contains("reactions"))
  }
}
