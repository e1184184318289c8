import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Testing

@testable import ChatData

/// The session row (`SessionTable`): one at most, replaced by the next sign-in or refresh.
@Suite struct SessionTableTests {
  @Test func aSavedSessionReplacesTheOneBefore() async throws {
    let f = try await StoreFixture.make()
    #expect(try await f.store.session() == nil)
    let first = SessionRecord(
      userID: f.me, deviceID: DeviceID("d1"), accessToken: "a1", refreshToken: "r1",
      expiresAt: Date(timeIntervalSince1970: 1_000))
    var second = first
    second.accessToken = "a2"
    second.refreshToken = "r2"
    second.expiresAt = Date(timeIntervalSince1970: 2_000)
    try await f.store.saveSession(first)
    try await f.store.saveSession(second)
    #expect(try await f.store.session() == second)
    #expect(try await f.store.read { try $0.scalarInt("SELECT count(*) FROM session") } == 1)
  }
}
