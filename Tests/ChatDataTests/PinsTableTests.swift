import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// A conversation's pins as the device shows them (`MessagesTable.foldPins`): the server's
/// list, true as of its `lastSequence`, with the pin items above it folded on top; what the
/// list already says is never applied twice, whatever order pages came in.
@Suite struct PinsTableTests {
  private func served(_ f: StoreFixture, _ pins: [Int], asOf lastSequence: Int) async throws {
    try await f.store.saveConversations(
      [
        ServerConversation(
          id: f.chat, title: "Hiking", memberIDs: [f.me, f.bob],
          createdAt: Date(timeIntervalSince1970: 1_000), lastSequence: lastSequence, readUpTo: 0,
          pinned: pins.map { PinnedEntry(id: StoreFixture.id($0), sequence: $0) })
      ], me: f.me)
  }

  /// bob's pin item `sequence` of message `target` (an unpin with `remove`).
  private func pinItem(_ f: StoreFixture, _ sequence: Int, of target: Int, remove: Bool = false)
    -> MessageRecord
  {
    var pin = f.serverMessage(sequence, text: "")
    pin.kind = .pin
    pin.target = StoreFixture.id(target)
    pin.reactionRemove = remove
    return pin
  }

  private func shown(_ f: StoreFixture) async throws -> [Int?] {
    try await f.store.listRows(me: f.me).first?.pins.map(\.sequence) ?? []
  }

  @Test func itemsAtOrBelowTheServedListChangeNothingAndNewerOnesFoldOnTop() async throws {
    let f = try await StoreFixture.make()
    _ = try await f.store.saveServerMessages(
      (1...3).map { f.serverMessage($0) }, in: f.chat, me: f.me)
    try await served(f, [2], asOf: 6)
    #expect(try await shown(f) == [2])
    // A page that brings the older pin and unpin items late: already in the served list.
    _ = try await f.store.saveServerMessages(
      [pinItem(f, 4, of: 1), pinItem(f, 5, of: 1, remove: true), pinItem(f, 6, of: 2)],
      in: f.chat, me: f.me)
    #expect(try await shown(f) == [2])
    // Newer items: each puts its message first, or takes it out.
    _ = try await f.store.saveServerMessages(
      [pinItem(f, 7, of: 3), pinItem(f, 8, of: 2, remove: true)], in: f.chat, me: f.me)
    #expect(try await shown(f) == [3])
    // An older answer does not undo them; the next one replaces what the items said.
    try await served(f, [2], asOf: 6)
    #expect(try await shown(f) == [3])
    try await served(f, [1, 3], asOf: 9)
    #expect(try await shown(f) == [1, 3])
  }

  @Test func aDeletedMessageIsLeftOutAndAPinOfAMessageNotHeldHasNoText() async throws {
    let f = try await StoreFixture.make()
    _ = try await f.store.saveServerMessages(
      [f.serverMessage(1, text: "meet at six")], in: f.chat, me: f.me)
    try await served(f, [1, 5], asOf: 7)
    let pins = try #require(try await f.store.listRows(me: f.me).first?.pins)
    #expect(pins.map(\.text) == ["meet at six", nil])
    #expect(pins.map(\.senderID) == [f.bob, nil])
    _ = try await f.store.saveServerMessages([f.deleteItem(8, of: 1)], in: f.chat, me: f.me)
    #expect(try await shown(f) == [5])
  }

  @Test func aStoredListReadsBackAsWritten() {
    let list = [
      PinnedEntry(id: StoreFixture.id(3), sequence: 3),
      PinnedEntry(id: StoreFixture.id(9), sequence: nil),
    ]
    #expect(PinnedEntry.list(stored: PinnedEntry.stored(list)) == list)
    #expect(PinnedEntry.stored([]) == nil)
    #expect(PinnedEntry.list(stored: "garbage,:,7:not-an-id") == [])
  }
}
