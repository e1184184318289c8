import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Testing

@testable import ChatData

@Suite struct MessageStoreTests {
  @Test func aMessageDeliveredTwiceIsStoredOnce() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 1)
    let message = f.serverMessage(1)
    try await f.store.saveServerMessages([message], in: f.chat, me: f.me)
    try await f.store.saveServerMessages([message], in: f.chat, me: f.me)
    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    #expect(snapshot.messages == [message])
  }

  /// The socket's echo of a message the post's reply already saved changes nothing: no write,
  /// and no observer is woken for it (the next change they hear is the next real one).
  @Test func aSaveThatChangesNoRowTellsNoObserver() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    let other = ConversationID("c2")
    try await f.addConversation(other)
    let changes = await f.store.changes()
    let message = f.serverMessage(1)
    try await f.store.saveServerMessages([message], in: f.chat, me: f.me)
    let again = try await f.store.saveServerMessages([message], in: f.chat, me: f.me)
    #expect(again == SaveOutcome(syncedUpTo: 1, hasGap: false))
    try await f.store.saveServerMessages(
      [f.serverMessage(1, in: other)], in: other, me: f.me)
    var heard: [Set<ConversationID>] = []
    for await change in changes {
      heard.append(change.conversations)
      if heard.count == 2 { break }
    }
    #expect(heard == [[f.chat], [other]])
  }

  /// What every send and every flush asks of the outbox is read from its partial index, never
  /// by walking every message (which made each send cost milliseconds in a large database).
  @Test func theOutboxQueriesReadTheOutboxIndexAndScanNoTable() async throws {
    let f = try await StoreFixture.make()
    let queries = [
      "SELECT \(MessageStore.nextOutboxPosition)", MessageStore.conversationsInOutbox,
      "SELECT count(*) FROM messages WHERE \(MessageStore.inOutbox)",
    ]
    for query in queries {
      let plan = try await f.store.read { db in
        try db.query("EXPLAIN QUERY PLAN " + query) { $0.string(3) }
      }
      #expect(plan.contains { $0.contains("messages_outbox") }, "\(query): \(plan)")
      #expect(!plan.contains { $0.hasPrefix("SCAN messages") }, "\(query): \(plan)")
    }
  }

  @Test func aPendingRowForAConversationNotOnThisDeviceIsNotSaved() async throws {
    let f = try await StoreFixture.make()
    #expect(try await f.store.insertPending(f.pending(StoreFixture.id(1)), queuedAt: 0) == nil)
    #expect(try await f.store.unsent().isEmpty)
    try await f.addConversation()
    #expect(try await f.store.insertPending(f.pending(StoreFixture.id(1)), queuedAt: 0) == .member)
  }

  @Test func theServersCopyOfMyMessageTurnsThePendingRowIntoTheAcknowledgedOne() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let id = StoreFixture.id(9)
    try await f.store.insertPending(f.pending(id), queuedAt: 0)
    #expect(try await f.store.unsent().map(\.clientID) == [id])
    try await f.store.saveServerMessages(
      [f.serverMessage(1, from: f.me, text: "on my way", id: id)], in: f.chat, me: f.me)
    let rows = try await f.store.snapshot(f.chat, limit: 50).messages
    #expect(rows.count == 1)
    #expect(rows[0].clientID == id)
    #expect(rows[0].sequence == 1)
    #expect(rows[0].state == .sent)
    #expect(try await f.store.unsent().isEmpty)
  }

  @Test func rowsSortBySequenceWithUnsentLastInClientIDOrder() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 3)
    try await f.store.insertPending(f.pending(StoreFixture.id(200)), queuedAt: 0)
    try await f.store.insertPending(f.pending(StoreFixture.id(100)), queuedAt: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(3), f.serverMessage(1)], in: f.chat, me: f.me)
    try await f.store.saveServerMessages([f.serverMessage(2)], in: f.chat, me: f.me)
    let rows = try await f.store.snapshot(f.chat, limit: 50).messages
    #expect(rows.map(\.sequence) == [1, 2, 3, nil, nil])
    #expect(rows.suffix(2).map(\.clientID) == [StoreFixture.id(100), StoreFixture.id(200)])
  }

  @Test func theOutboxIsOldestFirstAndARequeuedMessageGoesToTheBack() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let (a, b, c) = (StoreFixture.id(1), StoreFixture.id(2), StoreFixture.id(3))
    for id in [a, b, c] { try await f.store.insertPending(f.pending(id), queuedAt: 0) }
    try await f.store.markFailed(a, sender: f.me, reason: "invalid")
    #expect(try await f.store.unsent().map(\.clientID) == [b, c])
    #expect(try await f.store.requeue(a, sender: f.me, queuedAt: 0))
    #expect(try await f.store.unsent().map(\.clientID) == [b, c, a])
    #expect(try await f.store.requeue(b, sender: f.me, queuedAt: 0) == false)
  }

  /// "Send now" on a held photo whose post had started keeps its completed upload: that post
  /// may have reached the server (its reply lost), and posted again with a new upload's key it
  /// differs from what the server holds, a 409 that showed a sent message as failed
  /// (simulation seeds 208 and 753 of `--retain-messages 5 --stale-after 45`). Any other
  /// retry starts the upload again: the upload may be what the server refused, or swept.
  @Test func sendNowKeepsTheUploadOfAHeldPhotoWhosePostStartedOnly() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let (posted, refused, neverPosted) = (
      StoreFixture.id(1), StoreFixture.id(2), StoreFixture.id(3)
    )
    for (id, queuedAt) in [(posted, 0.0), (refused, 5.0), (neverPosted, 50.0)] {
      try await f.pendingPhoto(id, queuedAt: queuedAt)
    }
    #expect(try await f.store.startPosting(in: f.chat)?.record.clientID == posted)
    // It waited too long before its second post: held
    #expect(try await f.store.startPosting(in: f.chat, staleBefore: 1)?.record.clientID == refused)
    try await f.store.markFailed(refused, sender: f.me, reason: "refused")
    #expect(try await f.store.startPosting(in: f.chat, staleBefore: 100) == nil)
    for id in [posted, refused, neverPosted] {
      #expect(try await f.store.requeue(id, sender: f.me, queuedAt: 200))
    }

    let kept = try #require(try await f.store.upload(of: posted, in: f.chat, sender: f.me))
    #expect(kept.done && kept.key == "key-\(posted)" && kept.media.key == "key-\(posted)")
    for id in [refused, neverPosted] {
      let again = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
      #expect(!again.done && again.key == nil && again.media.key == "", "\(id)")
    }
  }

  @Test func syncPositionAdvancesOverContiguousRowsAndReportsAGap() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    var outcome = try await f.store.saveServerMessages(
      [f.serverMessage(1), f.serverMessage(2)], in: f.chat, me: f.me)
    #expect(outcome == SaveOutcome(syncedUpTo: 2, hasGap: false))
    outcome = try await f.store.saveServerMessages([f.serverMessage(5)], in: f.chat, me: f.me)
    #expect(outcome == SaveOutcome(syncedUpTo: 2, hasGap: true))
    outcome = try await f.store.saveServerMessages(
      [f.serverMessage(3), f.serverMessage(4)], in: f.chat, me: f.me)
    #expect(outcome == SaveOutcome(syncedUpTo: 5, hasGap: false))
  }

  @Test func myPendingMessageAnsweredWithAHeldSequenceIsLeftSendingNotFatal() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages([f.serverMessage(1)], in: f.chat, me: f.me)
    let mine = StoreFixture.id(50)
    try await f.store.insertPending(f.pending(mine), queuedAt: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, from: f.me, text: "on my way", id: mine), f.serverMessage(2)],
      in: f.chat, me: f.me)
    let rows = try await f.store.snapshot(f.chat, limit: 50).messages
    #expect(rows.map(\.sequence) == [1, 2, nil])
    #expect(rows.last?.clientID == mine)
  }

  @Test func anotherRowClaimingAHeldSequenceIsDroppedNotFatal() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages([f.serverMessage(1)], in: f.chat, me: f.me)
    let impostor = f.serverMessage(1, text: "other", id: StoreFixture.id(77))
    try await f.store.saveServerMessages([impostor, f.serverMessage(2)], in: f.chat, me: f.me)
    let rows = try await f.store.snapshot(f.chat, limit: 50).messages
    #expect(rows.map(\.text) == ["message 1", "message 2"])
  }

  @Test func theWindowShowsTheNewestRowsAboveTheFloorAndSaysWhetherMoreAreHeld() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages(
      (1...120).map { f.serverMessage($0) }, in: f.chat, me: f.me)
    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    #expect(snapshot.messages.map(\.sequence) == Array(71...120))
    #expect(snapshot.hasOlderHeld)
    let everything = try await f.store.snapshot(f.chat, limit: 120)
    #expect(everything.messages.count == 120)
    #expect(!everything.hasOlderHeld)
  }

  /// The snapshot reads the conversation, the receipts, the members' numbers and when each
  /// member joined in one statement: each part still as if read alone (the members' numbers
  /// by user, the latest members item that added someone wins, my unsent rows last).
  @Test func theSnapshotReadsTheGroupsNumbersAndWhenEachMemberJoined() async throws {
    let f = try await StoreFixture.make()
    let dave = UserID("dave")
    try await f.addConversation(members: [f.me, f.bob, f.carol, dave], lastSequence: 0)
    func members(_ sequence: Int, added: [UserID], removed: [UserID] = []) -> MessageRecord {
      var item = f.serverMessage(sequence, from: f.me, text: "")
      item.kind = .members
      item.added = added
      item.removed = removed
      return item
    }
    try await f.store.saveServerMessages(
      [
        f.serverMessage(1), members(2, added: [dave]), f.serverMessage(3),
        members(4, added: [], removed: [dave]), members(5, added: [f.carol]),
        members(6, added: [dave]), f.serverMessage(7),
      ], in: f.chat, me: f.me)
    for (user, number) in [(f.carol, 6), (dave, 7), (f.bob, 5)] {
      try await f.store.saveMemberReceipt(
        MemberReceiptRecord(userID: user, deliveredUpTo: number, readUpTo: number - 1),
        in: f.chat, me: f.me)
    }
    try await f.store.insertPending(f.pending(StoreFixture.id(99)), queuedAt: 0)

    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    #expect(snapshot.conversation?.memberIDs.count == 4)
    #expect(snapshot.memberReceipts.map(\.userID) == [f.bob, f.carol, dave])
    #expect(snapshot.memberReceipts.first?.deliveredUpTo == 5)
    #expect(snapshot.joinedAt == [dave: 6, f.carol: 5])
    #expect(snapshot.receipts == ReceiptsRecord(deliveredUpTo: 5, readUpTo: 4))
    #expect(snapshot.messages.map(\.sequence) == [1, 2, 3, 4, 5, 6, 7, nil])
    #expect(snapshot.messages.last?.state == .sending)

    // A one-to-one conversation reads no members' numbers; with nothing unsent, none show.
    let direct = ConversationID("c2")
    try await f.addConversation(direct, lastSequence: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, in: direct)], in: direct, me: f.me)
    let alone = try await f.store.snapshot(direct, limit: 50)
    #expect(alone.memberReceipts.isEmpty && alone.joinedAt.isEmpty)
    #expect(alone.messages.map(\.sequence) == [1])
    #expect(alone.receipts == nil)
  }

  @Test func numbersOnlyGoUp() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 10, readUpTo: 8)
    try await f.addConversation(lastSequence: 4, readUpTo: 2)
    let conversation = try #require(try await f.store.conversation(f.chat))
    #expect(conversation.lastSequence == 10)
    #expect(conversation.readUpTo == 8)
    try await f.store.saveReceipts(
      ReceiptsRecord(deliveredUpTo: 9, readUpTo: 7), members: [], in: f.chat, me: f.me)
    try await f.store.saveReceipts(
      ReceiptsRecord(deliveredUpTo: 3, readUpTo: 1), members: [], in: f.chat, me: f.me)
    #expect(try await f.store.receipts(in: f.chat) == ReceiptsRecord(deliveredUpTo: 9, readUpTo: 7))
  }

  @Test func ticksAreTheLowestOverTheOtherMembersOnceAllAreKnown() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(members: [f.me, f.bob, f.carol], lastSequence: 10)
    try await f.store.saveMemberReceipt(
      MemberReceiptRecord(userID: f.bob, deliveredUpTo: 9, readUpTo: 8), in: f.chat, me: f.me)
    #expect(try await f.store.receipts(in: f.chat) == nil)
    try await f.store.saveMemberReceipt(
      MemberReceiptRecord(userID: f.carol, deliveredUpTo: 6, readUpTo: 5), in: f.chat, me: f.me)
    #expect(try await f.store.receipts(in: f.chat) == ReceiptsRecord(deliveredUpTo: 6, readUpTo: 5))
  }

  @Test func myOwnReceiptFromAnotherDeviceLowersTheUnreadCount() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 5, readUpTo: 0)
    #expect(try await f.store.listRows().first?.unreadCount == 5)
    try await f.store.saveMemberReceipt(
      MemberReceiptRecord(userID: f.me, deliveredUpTo: 5, readUpTo: 3), in: f.chat, me: f.me)
    #expect(try await f.store.listRows().first?.unreadCount == 2)
    #expect(try await f.store.unacknowledgedReads().isEmpty)
  }

  @Test func readingHereLowersTheUnreadCountAtOnceAndIsOwedToTheServer() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 5)
    #expect(try await f.store.raiseOwnRead(f.chat, upTo: 4))
    #expect(try await f.store.raiseOwnRead(f.chat, upTo: 2) == false)
    #expect(try await f.store.listRows().first?.unreadCount == 1)
    let owed = try await f.store.unacknowledgedReads()
    #expect(owed.map(\.0) == [f.chat])
    #expect(owed.map(\.1) == [4])
    try await f.store.acknowledgeRead(f.chat, upTo: 4)
    #expect(try await f.store.unacknowledgedReads().isEmpty)
  }

  @Test func myOwnSentMessagesNeverCountAsUnread() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages([f.serverMessage(1)], in: f.chat, me: f.me)
    try await f.store.saveServerMessages(
      [f.serverMessage(2, from: f.me)], in: f.chat, me: f.me)
    #expect(try await f.store.listRows().first?.unreadCount == 0)
  }

  @Test func theListIsNewestActivityFirstWithAnUnsentMessageAsPreview() async throws {
    let f = try await StoreFixture.make()
    let other = ConversationID("c2")
    try await f.addConversation(lastSequence: 0)
    try await f.addConversation(other, lastSequence: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, in: other)], in: other, me: f.me)
    #expect(try await f.store.listRows().map(\.conversation.id) == [other, f.chat])
    try await f.store.insertPending(f.pending(StoreFixture.id(1), text: "new"), queuedAt: 0)
    let rows = try await f.store.listRows()
    #expect(rows.map(\.conversation.id) == [f.chat, other])
    #expect(rows[0].lastMessage?.text == "new")
    #expect(rows[0].lastMessage?.state == .sending)
  }

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
