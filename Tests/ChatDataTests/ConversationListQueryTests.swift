import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The conversation list (`ConversationListQuery`): newest activity first, the last message
/// (an unsent one of mine counts), and unread counted from the numbers, messages only.
@Suite struct ConversationListQueryTests {
  @Test func theListIsNewestActivityFirstWithAnUnsentMessageAsPreview() async throws {
    let f = try await StoreFixture.make()
    let other = ConversationID("c2")
    try await f.addConversation(lastSequence: 0)
    try await f.addConversation(other, lastSequence: 0)
    try await f.store.saveServerMessages(
      [f.serverMessage(1, in: other)], in: other, me: f.me)
    #expect(try await f.store.listRows(me: f.me).map(\.conversation.id) == [other, f.chat])
    try await f.store.insertPending(f.pending(StoreFixture.id(1), text: "new"), queuedAt: 0)
    let rows = try await f.store.listRows(me: f.me)
    #expect(rows.map(\.conversation.id) == [f.chat, other])
    #expect(rows[0].lastMessage?.text == "new")
    #expect(rows[0].lastMessage?.state == .sending)
  }

  @Test func myOwnSentMessagesNeverCountAsUnread() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 0)
    try await f.store.saveServerMessages([f.serverMessage(1)], in: f.chat, me: f.me)
    try await f.store.saveServerMessages(
      [f.serverMessage(2, from: f.me)], in: f.chat, me: f.me)
    #expect(try await f.store.listRows(me: f.me).first?.unreadCount == 0)
  }

  /// bob's message 1 ("Meet at the old lighthouse").
  private func original(_ f: StoreFixture) -> MessageRecord {
    f.serverMessage(1, text: "Meet at the old lighthouse")
  }

  private func edit(_ f: StoreFixture, _ sequence: Int, text: String) -> MessageRecord {
    f.editItem(sequence, text: text)
  }

  private func save(_ records: [MessageRecord], _ f: StoreFixture) async throws {
    try await f.store.saveServerMessages(records, in: f.chat, me: f.me)
  }

  @Test func unreadCountsMessagesOnlyAndTheListShowsTheNewestMessage() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    try await save([original(f), edit(f, 2, text: "Meet at the new pier")], f)
    let row = try #require(try await f.store.listRows(me: f.me).first)
    #expect(row.unreadCount == 1, "the edit is not a new message")
    #expect(row.lastMessage?.sequence == 1)
    #expect(row.lastMessage?.text == "Meet at the new pier")
    #expect(row.conversation.lastSequence == 2)
  }

  /// Unread needs no message rows: a conversation never fetched counts from the numbers the
  /// server gave. An unknown conversation has no row.
  @Test func unreadIsRightBeforeAnyMessageIsFetched() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 7, readUpTo: 3)
    let row = try #require(try await f.store.listRow(f.chat, me: f.me))
    #expect(row.unreadCount == 4 && row.lastMessage == nil)
    #expect(try await f.store.listRow(ConversationID("elsewhere"), me: f.me) == nil)
  }
}
