import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// Values kept between launches (`SettingsTable`), and the conversations' sync cursor, saved in
/// the write that saves what it covers.
@Suite struct SettingsTableTests {
  @Test func aSettingIsKeptReplacedAndRemoved() async throws {
    let f = try await StoreFixture.make()
    #expect(try await f.store.setting("k") == nil)
    try await f.store.saveSetting("k", "1")
    try await f.store.saveSetting("k", "2")
    #expect(try await f.store.setting("k") == "2")
    try await f.store.saveSetting("k", nil)
    #expect(try await f.store.setting("k") == nil)
  }

  @Test func theSyncCursorIsSavedWithTheConversationsItCovers() async throws {
    let f = try await StoreFixture.make()
    #expect(try await f.store.syncCursor() == nil)
    try await f.addConversation()
    try await f.store.saveConversations([], cursor: "c-9", me: f.me)
    #expect(try await f.store.syncCursor() == "c-9")
  }
}
