import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Testing

@testable import ChatData

/// A conversation as the screen reads it (`SnapshotQuery`): the newest rows above the history
/// floor in sequence order, my unsent ones last, and in one statement the conversation, the
/// receipts and the group's numbers.
@Suite struct SnapshotQueryTests {
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

  /// Nothing below the history floor shows (pruned, or below a hole paging back has not
  /// filled), so no hole shows in the middle of the screen.
  @Test func nothingBelowTheHistoryFloorShows() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(lastSequence: 10)
    try await f.store.saveServerMessages(
      [f.serverMessage(2), f.serverMessage(9), f.serverMessage(10)], in: f.chat, me: f.me)
    _ = try await f.store.setSyncPosition(f.chat, syncedUpTo: 10, historyFloor: 9)
    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    #expect(snapshot.messages.map(\.sequence) == [9, 10])
    #expect(!snapshot.hasOlderHeld)
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
}
