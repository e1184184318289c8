import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The `conversations` table's rules (`ConversationsTable`): numbers only rise, my read number
/// is raised here first and owed to the server, and an older answer never undoes a newer item.
@Suite struct ConversationsTableTests {
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

  @Test func readingHereLowersTheUnreadCountAtOnceAndIsOwedToTheServer() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 5)
    #expect(try await f.store.raiseOwnRead(f.chat, upTo: 4))
    #expect(try await f.store.raiseOwnRead(f.chat, upTo: 2) == false)
    #expect(try await f.store.listRows(me: f.me).first?.unreadCount == 1)
    let owed = try await f.store.unacknowledgedReads()
    #expect(owed.map(\.0) == [f.chat])
    #expect(owed.map(\.1) == [4])
    try await f.store.acknowledgeRead(f.chat, upTo: 4)
    #expect(try await f.store.unacknowledgedReads().isEmpty)
  }

  /// A title item renames the conversation unless a newer one already did (items can arrive
  /// out of order); the server's list, as of an older sequence, gives way to it too.
  @Test func aTitleHoldsAgainstOlderItemsAndOlderAnswers() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    func title(_ sequence: Int, _ text: String) -> MessageRecord {
      var item = f.serverMessage(sequence, text: "")
      item.kind = .title
      item.title = text
      return item
    }
    try await f.store.saveServerMessages([title(3, "Climbing")], in: f.chat, me: f.me)
    try await f.store.saveServerMessages([title(2, "Sailing")], in: f.chat, me: f.me)
    #expect(try await f.store.conversation(f.chat)?.title == "Climbing")
    try await f.addConversation()
    #expect(try await f.store.conversation(f.chat)?.title == "Climbing")
  }

  /// Mute is the server's word only from a server that serves it: an answer without it keeps
  /// what this device saved.
  @Test func anAnswerThatDoesNotKnowMuteKeepsTheMuteSavedHere() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let until = Date(timeIntervalSince1970: 90_000)
    try await f.store.setMuted(f.chat, until: until, mentionsPush: false)
    try await f.addConversation()
    #expect(try await f.store.conversation(f.chat)?.mutedUntil == until)
    #expect(try await f.store.conversation(f.chat)?.mentionsPushThroughMute == false)
    var answer = ServerConversation(
      id: f.chat, title: "Hiking", memberIDs: [f.me, f.bob],
      createdAt: Date(timeIntervalSince1970: 1_000), lastSequence: 0, readUpTo: 0)
    answer.knowsMute = true
    try await f.store.saveConversations([answer], me: f.me)
    #expect(try await f.store.conversation(f.chat)?.mutedUntil == nil)
  }
}
