import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The `messages` table's rules (`MessagesTable`), API.md Part 2 on the device: the server's
/// items saved by ID and applied in sequence order. An edit replaces its message's text and
/// sets `editedAt`; a delete leaves a tombstone and erases the text of the message and its
/// edits from the rows, the search index and the files, in one transaction; a change that
/// arrives before its message still wins; a members item moves where I stand. And the sync
/// position, walked over what is held, with its gaps.
@Suite struct MessagesTableTests {
  /// bob's message 1 ("Meet at the old lighthouse").
  private func original(_ f: StoreFixture) -> MessageRecord {
    f.serverMessage(1, text: "Meet at the old lighthouse")
  }

  private func edit(_ f: StoreFixture, _ sequence: Int, text: String) -> MessageRecord {
    f.editItem(sequence, text: text)
  }

  private func delete(_ f: StoreFixture, _ sequence: Int) -> MessageRecord {
    f.deleteItem(sequence)
  }

  private func save(_ records: [MessageRecord], _ f: StoreFixture) async throws {
    try await f.store.saveServerMessages(records, in: f.chat, me: f.me)
  }

  private func shown(_ f: StoreFixture) async throws -> [MessageRecord] {
    try await f.store.snapshot(f.chat, limit: 50).messages
  }

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

  @Test func anEditReplacesTheTextAndShowsAsNoRowOfItsOwn() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([original(f)], f)
    let edit = edit(f, 2, text: "Meet at the new pier")
    try await save([edit], f)
    let messages = try await shown(f)
    #expect(messages.map(\.text) == ["Meet at the new pier"])
    #expect(messages.first?.editedAt == edit.sentAt)
    #expect(try await f.store.search("lighthouse", limit: 10).isEmpty, "the old words are gone")
    #expect(
      try await f.store.search("pier", limit: 10).map(\.message.clientID) == [StoreFixture.id(1)])
    #expect(try await f.store.newestSequence(in: f.chat) == 2, "the edit holds its sequence")
  }

  @Test func aDeleteLeavesATombstoneWithNoTextInRowsOrIndex() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([original(f), edit(f, 2, text: "Meet at the new pier"), delete(f, 3)], f)
    let messages = try await shown(f)
    #expect(messages.count == 1)
    #expect(messages.first?.isDeleted == true)
    #expect(messages.first?.text == "")
    #expect(try await f.store.search("lighthouse", limit: 10).isEmpty)
    #expect(try await f.store.search("pier", limit: 10).isEmpty)
    let texts = try await f.store.read { db in
      try db.query("SELECT text FROM messages WHERE text != ''") { $0.string(0) }
    }
    #expect(texts.isEmpty, "the edit's text went with the message's")
  }

  @Test func anEditedOrDeletedTextIsInNoFileOfTheDatabase() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await StoreFixture.make(.file(path))
    try await f.addConversation()
    try await save([original(f), edit(f, 2, text: "Meet at the new pier")], f)
    func filesHold(_ text: String) -> Bool {
      Database.occurrences(of: Array(text.utf8), inFilesAt: path) > 0
    }
    // The rows at once; the index pages and the log in the erasure pass that follows.
    await f.store.finishErasure()
    #expect(filesHold("pier"), "the check can see the words")
    #expect(!filesHold("lighthouse"), "the edit erased the text it replaced")
    try await save([delete(f, 3)], f)
    await f.store.finishErasure()
    #expect(!filesHold("pier"))
  }

  /// A reply's stored quote is text of another message: it follows that message's edit and
  /// delete, so no file keeps a deleted text through a quote of it.
  @Test func aQuoteStoredWithAReplyFollowsItsMessagesEditAndDelete() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await StoreFixture.make(.file(path))
    try await f.addConversation()
    var reply = f.serverMessage(2, from: f.me, text: "on my way")
    reply.replyTo = original(f).clientID
    reply.quote = .shown(
      Quote(
        senderId: f.bob.rawValue, sequence: 1, text: "Meet at the old lighthouse",
        mediaKind: nil, deleted: false))
    // The reply first, its target later (a page of history): the quote is the server's.
    try await save([reply], f)
    func storedQuote() async throws -> String? {
      try await f.store.read { db in
        try db.query("SELECT quote FROM messages WHERE reply_to IS NOT NULL") {
          $0.optionalString(0)
        }.first ?? nil
      }
    }
    #expect(try await storedQuote()?.contains("lighthouse") == true)
    try await save([original(f), edit(f, 3, text: "Meet at the new pier")], f)
    #expect(try await storedQuote()?.contains("new pier") == true)
    #expect(
      try await shown(f).last?.quote
        == .shown(
          Quote(
            senderId: f.bob.rawValue, sequence: 1, text: "Meet at the new pier", mediaKind: nil,
            deleted: false)))
    try await save([delete(f, 4)], f)
    await f.store.finishErasure()
    #expect(try await storedQuote()?.contains("pier") == false)
    #expect(Database.occurrences(of: Array("pier".utf8), inFilesAt: path) == 0)
    #expect(Database.occurrences(of: Array("lighthouse".utf8), inFilesAt: path) == 0)
  }

  @Test func aDeleteThatArrivesBeforeItsMessageStillErasesIt() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([delete(f, 2)], f)
    try await save([original(f)], f)
    let messages = try await shown(f)
    #expect(messages.map(\.isDeleted) == [true])
    #expect(messages.map(\.text) == [""])
    #expect(try await f.store.search("lighthouse", limit: 10).isEmpty)
  }

  @Test func anEditThatArrivesBeforeItsMessageStillApplies() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([edit(f, 2, text: "Meet at the new pier")], f)
    try await save([original(f)], f)
    #expect(try await shown(f).map(\.text) == ["Meet at the new pier"])
    #expect(try await f.store.search("lighthouse", limit: 10).isEmpty)
  }

  @Test func aMessageServedInAnOlderStateDoesNotUndoANewerEdit() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([original(f), edit(f, 3, text: "Meet at ten")], f)
    // A page fetched before that edit, served after it: the message as edited at sequence 2.
    var stale = original(f)
    stale.text = "Meet at nine"
    stale.editedAt = edit(f, 2, text: "").sentAt
    try await save([stale], f)
    #expect(try await shown(f).map(\.text) == ["Meet at ten"])
    // The same message served in a newer state (edited after what this device holds) wins.
    var newer = original(f)
    newer.text = "Meet at eleven"
    newer.editedAt = edit(f, 9, text: "").sentAt
    try await save([newer], f)
    #expect(try await shown(f).map(\.text) == ["Meet at eleven"])
  }

  /// A members item that removes me closes what I see at it and makes the conversation
  /// read-only here; one that adds me back opens a new range. An item older than the members
  /// state held changes nothing.
  @Test func aMembersItemThatRemovesMeClosesWhatISeeAndOneThatAddsMeOpensIt() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(members: [f.me, f.bob, f.carol])
    func members(_ sequence: Int, added: [UserID] = [], removed: [UserID] = []) -> MessageRecord {
      var item = f.serverMessage(sequence, text: "")
      item.kind = .members
      item.added = added
      item.removed = removed
      return item
    }
    try await save([f.serverMessage(1), members(2, removed: [f.me])], f)
    var conversation = try #require(try await f.store.conversation(f.chat))
    #expect(conversation.participation == .removed)
    #expect(conversation.memberIDs == [f.bob, f.carol])
    #expect(conversation.visible.stored == "1:2")
    #expect(
      try await f.store.insertPending(f.pending(StoreFixture.id(50)), queuedAt: 0) == .removed)
    try await save([members(4, added: [f.me])], f)
    conversation = try #require(try await f.store.conversation(f.chat))
    #expect(conversation.participation == .member)
    #expect(conversation.visible.stored == "1:2,4:")
    // Removing carol at 3, arriving after the state as of 4: nothing changes.
    try await save([members(3, removed: [f.carol])], f)
    #expect(try await f.store.conversation(f.chat)?.memberIDs == [f.me, f.bob, f.carol])
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

  /// Where this device's contiguous copy starts and ends is only ever widened: a later, narrower
  /// answer (an older page) moves neither end.
  @Test func theSyncPositionOnlyWidens() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 10)
    try await save((6...10).map { f.serverMessage($0) }, f)
    var outcome = try await f.store.setSyncPosition(f.chat, syncedUpTo: 10, historyFloor: 6)
    #expect(outcome == SaveOutcome(syncedUpTo: 10, hasGap: false))
    outcome = try await f.store.setSyncPosition(f.chat, syncedUpTo: 7, historyFloor: 8)
    #expect(outcome == SaveOutcome(syncedUpTo: 10, hasGap: false))
    #expect(try await f.store.conversation(f.chat)?.historyFloor == 6)
  }
}
