import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The receipt numbers (`ReceiptsTable`): my ticks are the lowest numbers over the other
/// members, none loaded is unknown, and my own numbers from another device move my unread count.
@Suite struct ReceiptsTableTests {
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
    #expect(try await f.store.listRows(me: f.me).first?.unreadCount == 5)
    try await f.store.saveMemberReceipt(
      MemberReceiptRecord(userID: f.me, deliveredUpTo: 5, readUpTo: 3), in: f.chat, me: f.me)
    #expect(try await f.store.listRows(me: f.me).first?.unreadCount == 2)
    #expect(try await f.store.unacknowledgedReads().isEmpty)
  }

  /// The receipts endpoint's answer saves my ticks and every member's numbers; a lower number
  /// heard later moves neither.
  @Test func theEndpointsAnswerSavesMyTicksAndEachMembersNumbers() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation(members: [f.me, f.bob, f.carol], lastSequence: 10)
    let members = [
      MemberReceiptRecord(userID: f.bob, deliveredUpTo: 9, readUpTo: 8),
      MemberReceiptRecord(userID: f.carol, deliveredUpTo: 7, readUpTo: 7),
    ]
    try await f.store.saveReceipts(
      ReceiptsRecord(deliveredUpTo: 7, readUpTo: 7), members: members, in: f.chat, me: f.me)
    try await f.store.saveMemberReceipt(
      MemberReceiptRecord(userID: f.carol, deliveredUpTo: 3, readUpTo: 2), in: f.chat, me: f.me)
    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    #expect(snapshot.receipts == ReceiptsRecord(deliveredUpTo: 7, readUpTo: 7))
    #expect(snapshot.memberReceipts == members)
  }
}
