import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The free space of the table pages after an erasure pass (`MessageStore+FreeSpace.swift`):
/// a replaced text whose bytes are still in the file makes the pass end with `VACUUM`; none
/// left, no `VACUUM`; a pass owed at open (what memory held is lost) ends with one.
@Suite struct FreeSpaceTests {
  private let deleteID = StoreFixture.id(100)

  private func fixture(_ path: String, texts: [(Int, UserID?, String)]) async throws
    -> StoreFixture
  {
    let f = try await StoreFixture.make(.file(path))
    try await f.addConversation()
    try await f.store.saveServerMessages(
      texts.map { f.serverMessage($0.0, from: $0.1 ?? f.me, text: $0.2) }, in: f.chat, me: f.me)
    await f.store.finishErasure()
    return f
  }

  @Test func aReplacedTextStillInTheFileMakesThePassVacuum() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    // Bob's message says the same: the text lives on in its row, so the pass finds it.
    let f = try await fixture(
      path,
      texts: [
        (1, nil, "Meet at the old lighthouse"), (2, UserID("bob"), "Meet at the old lighthouse"),
      ])
    let before = await f.store.vacuums
    _ = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: deleteID, at: Date())
    await f.store.finishErasure()
    #expect(await f.store.vacuums == before + 1)
  }

  @Test func aPassThatFindsNothingLeftDoesNotVacuum() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await fixture(path, texts: [(1, nil, "Meet at the old lighthouse")])
    let before = await f.store.vacuums
    _ = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: deleteID, at: Date())
    await f.store.finishErasure()
    #expect(await f.store.vacuums == before)
    #expect(Database.occurrences(of: Array("lighthouse".utf8), inFilesAt: path) == 0)
  }

  @Test func aPassOwedAtOpenEndsWithVacuum() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    do {
      let f = try await fixture(path, texts: [(1, nil, "Meet at the old lighthouse")])
      await f.store.close()
    }
    // A kill after a change and before its pass: the owed count is in the file, the texts
    // replaced were in memory only.
    let raw = try Database(.file(path))
    try raw.execute("UPDATE erasure SET owed = erased + 1")
    raw.close()
    let again = try await StoreFixture.make(.file(path))
    await again.store.finishErasure()
    #expect(await again.store.vacuums == 1)
  }
}
