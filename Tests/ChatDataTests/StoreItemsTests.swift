import ChatDomain
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// API.md Part 2 on the device: the store applies items in sequence order. An edit replaces its
/// message's text and sets `editedAt`; a delete leaves a tombstone and erases the text of the
/// message and its edits from the rows, the search index and the files, in one transaction;
/// a change that arrives before its message still wins.
@Suite struct StoreItemsTests {
  /// bob's message 1 ("Meet at the old lighthouse").
  private func original(_ f: StoreFixture) -> MessageRecord {
    f.serverMessage(1, text: "Meet at the old lighthouse")
  }

  private func edit(_ f: StoreFixture, _ sequence: Int, text: String) -> MessageRecord {
    var edit = f.serverMessage(sequence, text: text)
    edit.kind = .edit
    edit.target = StoreFixture.id(1)
    return edit
  }

  private func delete(_ f: StoreFixture, _ sequence: Int) -> MessageRecord {
    var delete = f.serverMessage(sequence, text: "")
    delete.kind = .delete
    delete.target = StoreFixture.id(1)
    return delete
  }

  private func save(_ records: [MessageRecord], _ f: StoreFixture) async throws {
    try await f.store.saveServerMessages(records, in: f.chat, me: f.me)
  }

  private func shown(_ f: StoreFixture) async throws -> [MessageRecord] {
    try await f.store.snapshot(f.chat, limit: 50).messages
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

  @Test func unreadCountsMessagesOnlyAndTheListShowsTheNewestMessage() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([original(f), edit(f, 2, text: "Meet at the new pier")], f)
    let row = try #require(try await f.store.listRows().first)
    #expect(row.unreadCount == 1, "the edit is not a new message")
    #expect(row.lastMessage?.sequence == 1)
    #expect(row.lastMessage?.text == "Meet at the new pier")
    #expect(row.conversation.lastSequence == 2)
  }
}
