import ChatAPI
import ChatTestSupport
import ChatWorld
import Foundation
import Hashing
import SQLite
import Support
import Testing

@testable import ChatServer

/// Refresh-token families (issue 33): a sign-in starts one, each rotation keeps it, and a spent
/// token presented again revokes all of it, access tokens and live sockets included.
@Suite(.timeLimit(.minutes(1)))
struct TokenFamilyTests {
  func refresh(_ server: TestServer, _ token: String) async -> TestResponse {
    await server.request("POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(token)"}"#)
  }

  /// The session a 200 from `/v1/auth/refresh` answers.
  func rotated(_ server: TestServer, _ session: Session) async throws -> Session {
    let response = await refresh(server, session.refreshToken)
    #expect(response.status == 200, "\(response.text)")
    var next = session
    next.accessToken = try #require(response.object["accessToken"] as? String)
    next.refreshToken = try #require(response.object["refreshToken"] as? String)
    return next
  }

  func conversationsStatus(_ server: TestServer, _ session: Session) async -> Int {
    await server.request("GET", "/v1/conversations", token: session.accessToken).status
  }

  @Test func reusingASpentRefreshTokenRevokesEveryTokenOfItsFamily() async throws {
    let server = try TestServer()
    let signedIn = try await server.login("alice")
    let tablet = try await server.login("alice", device: "tablet")
    let user = try await rotated(server, signedIn)
    // Someone else presents the token the user already spent: the thief, or the user.
    let reused = await refresh(server, signedIn.refreshToken)
    #expect(reused.status == 401)
    #expect(reused.errorCode == "unauthorized")
    #expect(await refresh(server, user.refreshToken).status == 401, "the newer token is revoked")
    #expect(await conversationsStatus(server, user) == 401, "so are its access tokens")
    #expect(await conversationsStatus(server, signedIn) == 401)
    // Another sign-in is another family, untouched; the device can sign in again.
    #expect(await conversationsStatus(server, tablet) == 200)
    _ = try await rotated(server, tablet)
    let again = try await server.login("alice")
    #expect(await conversationsStatus(server, again) == 200)
  }

  @Test func aReuseIsLoggedWithoutAnyTokenAndCounted() async throws {
    let server = try TestServer()
    let signedIn = try await server.login("alice", device: "ipad")
    let user = try await rotated(server, signedIn)
    _ = await refresh(server, signedIn.refreshToken)
    let reuse = try #require(server.log.records.first { $0.event == "refresh_token_reused" })
    #expect(reuse.level == .warning)
    #expect(reuse.fields.map(\.key) == ["user", "device", "family"])
    #expect(reuse["user"] == "alice")
    #expect(reuse["device"] == "ipad")
    for line in server.log.lines {
      for token in [signedIn.refreshToken, user.refreshToken, user.accessToken] {
        #expect(!line.contains(token))
      }
    }
    let metrics = await server.request("GET", "/metrics")
    #expect(metrics.text.contains("chat_refresh_token_reuses_total 1\n"))
  }

  @Test func aReuseClosesTheFamilysLiveSocketsAndNoOther() async throws {
    let server = try TestServer()
    let signedIn = try await server.login("alice")
    let user = try await rotated(server, signedIn)
    let tablet = try await server.login("alice", device: "tablet")
    let family = try await server.openLive(user)
    let older = try await server.openLive(signedIn)
    let other = try await server.openLive(tablet)
    _ = await refresh(server, signedIn.refreshToken)
    for subscription in [family, older] {
      for await _ in subscription.events {}
      #expect(subscription.closure == .signedOut)
    }
    #expect(other.closure == nil)
    #expect(await server.drain(other).isEmpty)
    #expect(
      ChatHTTPServer.closeFrame(for: .signedOut) == (
        ChatHTTPServer.authorizationEnded, "signed out"
      ))
  }

  @Test func aRevokedFamilyStaysRefusedAfterARestartUntilItsAccessTokensExpire() async throws {
    let folder = try TemporaryFolder()
    var random = SplitMix64(seed: 4)
    let key = try SigningKey.loadOrCreate(inFolder: folder.path, using: &random)
    let configuration = ServerConfiguration(
      devMode: true, accessTokenTTL: .seconds(900), rateLimit: nil, signingKey: key)
    let clock = ManualClock(wallClock: TestServer.start)
    let first = try TestServer(
      configuration: configuration, location: .dataFolder(folder.path), clock: clock)
    let signedIn = try await first.login("alice")
    let user = try await rotated(first, signedIn)
    _ = await refresh(first, signedIn.refreshToken)

    let restarted = try TestServer(
      configuration: configuration, location: .dataFolder(folder.path), seed: 2, clock: clock)
    #expect(await conversationsStatus(restarted, user) == 401)
    let revokedAt = clock.now()
    #expect(try await restarted.store.revokedFamilies(at: revokedAt).count == 1)
    // Once every access token of the family has expired, the entry may go.
    let forgotten = revokedAt + .seconds(900)
    #expect(try await restarted.store.revokedFamilies(at: forgotten - .milliseconds(1)).count == 1)
    #expect(try await restarted.store.revokedFamilies(at: forgotten).isEmpty)
  }

  /// The store's single `UPDATE … RETURNING` decides: one rotation wins, the other is a reuse.
  @Test func twoRotationsOfOneTokenAtOnceHaveExactlyOneWinner() async throws {
    let server = try TestServer()
    let signedIn = try await server.login("alice")
    async let first = refresh(server, signedIn.refreshToken)
    async let second = refresh(server, signedIn.refreshToken)
    let statuses = await [first.status, second.status]
    #expect(statuses.sorted() == [200, 401])
    let winner = try #require(await [first, second].first { $0.status == 200 })
    let token = try #require(winner.object["refreshToken"] as? String)
    #expect(await refresh(server, token).status == 401, "the family was revoked by the loser")
  }

  /// Tokens kept by a version before families (`Tests/Fixtures/v8`, with two tokens added)
  /// each become a family of their own: revoking one leaves the other.
  @Test func tokensKeptBeforeFamiliesEachBecomeAFamilyOfTheirOwn() async throws {
    let folder = try TemporaryFolder()
    let path = try SchemaFixtures.copy("v8", "server.sqlite", to: folder.path + "/chat.sqlite")
    let before = try Database(.file(path))
    let expiry = (TestServer.start + .seconds(86_400)).millisecondsSince1970
    for (token, device) in [("phone-token", "old-phone"), ("tablet-token", "old-tablet")] {
      try before.run(
        """
        INSERT INTO refresh_tokens (token_hash, user_id, device_id, expires_at)
        VALUES (?, 'alice', ?, ?)
        """, Crypto.sha256(Array(token.utf8)), device, expiry)
    }
    before.close()
    let server = try TestServer(location: .dataFolder(folder.path))
    let families = try await server.rows(
      "SELECT DISTINCT family_id FROM refresh_tokens WHERE device_id LIKE 'old-%'")
    #expect(families.count == 2)
    let phone = await refresh(server, "phone-token")
    #expect(phone.status == 200)
    #expect(await refresh(server, "phone-token").status == 401)
    let phoneNext = try #require(phone.object["refreshToken"] as? String)
    #expect(await refresh(server, phoneNext).status == 401)
    #expect(await refresh(server, "tablet-token").status == 200)
  }
}
