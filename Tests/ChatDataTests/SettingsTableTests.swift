import ChatDomain
import Foundation
import SQLite
import Testing

@testable import ChatData

/// Values kept between launches (`SettingsTable`), and the conversations' sync cursor, saved in
/// the write that saves what it covers.
@Suite struct SettingsTableTests {
  /// A device whose storage filled: the write is refused as `deviceFull` (what the screen
  /// says), and what was saved before stays.
  @Test func aWriteOnAFullDeviceIsDeviceFullAndLosesNothing() async throws {
    let f = try await StoreFixture.make()
    try await f.store.saveSetting("kept", "1")
    // SQLite's own size limit on the store's connection: reached as a full disk is.
    try await f.store.read { db in
      try db.execute("PRAGMA max_page_count = \(try db.scalarInt("PRAGMA page_count") ?? 0)")
    }
    let error = await #expect(throws: StoreError.self) {
      try await f.store.saveSetting("big", String(repeating: "x", count: 100_000))
    }
    guard case .full = error else {
      Issue.record("not .full: \(String(describing: error))")
      return
    }
    #expect(error?.chatError == .deviceFull)
    #expect(ChatError.deviceFull.description.contains("storage is full"))
    #expect(try await f.store.setting("kept") == "1")
  }

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
