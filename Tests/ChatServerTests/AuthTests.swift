import ChatAPI
import ChatServer
import ChatTestSupport
import ChatWorld
import Foundation
import Support
import Testing

@Suite struct AuthTests {
  /// Every route that needs a token, with a body that would otherwise be acceptable.
  static let protectedRoutes: [(method: String, path: String, body: String)] = [
    ("POST", "/v1/conversations", #"{"memberIds":[]}"#),
    ("GET", "/v1/conversations", ""),
    ("GET", "/v1/sync", ""),
    ("GET", "/v1/conversations/\(unknownConversation)/messages", ""),
    (
      "POST", "/v1/conversations/\(unknownConversation)/messages",
      #"{"clientMessageId":"0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b","text":"hi"}"#
    ),
    ("GET", "/v1/conversations/\(unknownConversation)/receipts", ""),
    ("POST", "/v1/conversations/\(unknownConversation)/delivered", #"{"upToSequence":0}"#),
    ("POST", "/v1/conversations/\(unknownConversation)/read", #"{"upToSequence":0}"#),
    ("GET", "/v1/live", ""),
    ("GET", "/v1/no-such-route", ""),
  ]

  static let unknownConversation = "00000000-0000-4000-8000-000000000000"

  /// Authorization headers that must all be refused, by name.
  static func badAuthorizations(server: TestServer, otherServer: TestServer) async throws
    -> [(String, HeaderFields)]
  {
    let valid = try await server.login("alice")
    let foreign = try await otherServer.login("alice")
    let parts = valid.accessToken.split(separator: ".")
    let tampered = String(parts[0].dropLast()) + (parts[0].last == "A" ? "B" : "A") + "." + parts[1]
    return [
      ("missing", [:]),
      ("not bearer", ["authorization": "Basic YWxpY2U6c2VjcmV0"]),
      ("empty bearer", ["authorization": "Bearer "]),
      ("malformed", ["authorization": "Bearer not-a-token"]),
      ("three parts", ["authorization": "Bearer a.b.c"]),
      ("wrong signature", ["authorization": "Bearer \(foreign.accessToken)"]),
      ("tampered payload", ["authorization": "Bearer \(tampered)"]),
      ("refresh token as access token", ["authorization": "Bearer \(valid.refreshToken)"]),
    ]
  }

  @Test func everyProtectedRouteAndTheLiveUpgradeRefuseABadToken() async throws {
    let server = try TestServer(seed: 1)
    let other = try TestServer(seed: 2)
    let bad = try await Self.badAuthorizations(server: server, otherServer: other)
    for (name, headers) in bad {
      for route in Self.protectedRoutes {
        let response = await server.request(
          route.method, route.path, body: route.body, headers: headers)
        #expect(response.status == 401, "\(name): \(route.method) \(route.path)")
        #expect(response.errorCode == "unauthorized", "\(name): \(route.method) \(route.path)")
        #expect(response.header("WWW-Authenticate") == "Bearer")
      }
      let upgrade = await server.service.openLive(
        APIRequest(method: "GET", path: "/v1/live", headers: headers))
      guard case .refused(let refusal) = upgrade else {
        Issue.record("\(name): the live upgrade was accepted")
        continue
      }
      #expect(refusal.status == 401, "\(name): live")
      #expect(TestResponse(refusal).errorCode == "unauthorized")
    }
  }

  @Test func anAccessTokenExpiresAfterItsTTLOnEveryRoute() async throws {
    let clock = ManualClock()
    let server = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, accessTokenTTL: .seconds(900), rateLimit: nil),
      clock: clock)
    let alice = try await server.login("alice")
    clock.advance(by: .milliseconds(899_999))
    #expect(
      await server.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    clock.advance(by: .milliseconds(1))
    for route in Self.protectedRoutes {
      let response = await server.request(
        route.method, route.path, token: alice.accessToken, body: route.body)
      #expect(response.status == 401, "\(route.method) \(route.path)")
    }
    let upgrade = await server.service.openLive(
      APIRequest(
        method: "GET", path: "/v1/live", headers: ["authorization": "Bearer \(alice.accessToken)"]))
    guard case .refused(let refusal) = upgrade else {
      Issue.record("an expired token opened a live subscription")
      return
    }
    #expect(refusal.status == 401)
  }

  @Test func devLoginAnswersTokensWithTheRightExpiry() async throws {
    let clock = ManualClock(wallClock: Timestamp(millisecondsSince1970: 1_796_047_323_123))
    let server = try TestServer(clock: clock)
    let response = await server.request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"alice","deviceId":"phone"}"#)
    #expect(response.status == 200)
    #expect(response.object["userId"] as? String == "alice")
    #expect(response.object["deviceId"] as? String == "phone")
    #expect(response.object["expiresAt"] as? String == "2026-11-30T14:17:03.123Z")
    #expect((response.object["accessToken"] as? String)?.isEmpty == false)
    #expect((response.object["refreshToken"] as? String)?.isEmpty == false)
  }

  @Test func devLoginIsNotFoundOutsideDevMode() async throws {
    let server = try TestServer(configuration: ServerConfiguration(devMode: false))
    let response = await server.request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"alice","deviceId":"phone"}"#)
    #expect(response.status == 404)
    #expect(response.errorCode == "not_found")
  }

  @Test func devLoginRefusesMalformedIds() async throws {
    let server = try TestServer()
    let bodies = [
      #"{"userId":"Alice","deviceId":"phone"}"#,
      #"{"userId":"","deviceId":"phone"}"#,
      #"{"userId":"alice bob","deviceId":"phone"}"#,
      #"{"userId":"\#(String(repeating: "a", count: 65))","deviceId":"phone"}"#,
      #"{"userId":"alice","deviceId":"Phone!"}"#,
      #"{"userId":"alice"}"#,
      #"{"userId":7,"deviceId":"phone"}"#,
      "not json",
    ]
    for body in bodies {
      let response = await server.request("POST", "/v1/auth/dev-login", body: body)
      #expect(response.status == 400, "\(body)")
      #expect(response.errorCode == "bad_request")
    }
    let longest = String(repeating: "a", count: 64)
    let accepted = await server.request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"\#(longest)","deviceId":"a.b_c-9"}"#)
    #expect(accepted.status == 200)
  }

  @Test func refreshRotatesTheTokenAndTheOldOneIsSpent() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice", device: "ipad")
    let first = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(alice.refreshToken)"}"#)
    #expect(first.status == 200)
    #expect(first.object["userId"] as? String == "alice")
    #expect(first.object["deviceId"] as? String == "ipad")
    let newRefresh = try #require(first.object["refreshToken"] as? String)
    let newAccess = try #require(first.object["accessToken"] as? String)
    #expect(newRefresh != alice.refreshToken)
    #expect(await server.request("GET", "/v1/conversations", token: newAccess).status == 200)

    let second = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(newRefresh)"}"#)
    #expect(second.status == 200)
    #expect(second.object["refreshToken"] as? String != newRefresh)
    // What happens to a spent one presented again: TokenFamilyTests.
  }

  @Test func refreshRefusesUnknownAndExpiredTokens() async throws {
    let clock = ManualClock()
    let server = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, refreshTokenTTL: .seconds(3600), rateLimit: nil),
      clock: clock)
    let alice = try await server.login("alice")
    let unknown = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"bm9wZQ"}"#)
    #expect(unknown.status == 401)
    let missing = await server.request("POST", "/v1/auth/refresh", body: "{}")
    #expect(missing.status == 400)
    clock.advance(by: .seconds(3600))
    let expired = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(alice.refreshToken)"}"#)
    #expect(expired.status == 401)
  }

  @Test func refreshTokensAreStoredOnlyAsHashes() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let rows = try await server.rows("SELECT token_hash, user_id FROM refresh_tokens")
    #expect(rows.count == 1)
    guard case .blob(let hash) = rows[0][0] else {
      Issue.record("token_hash is not a blob")
      return
    }
    #expect(hash.count == 32)
    let stored = try await server.rows("SELECT * FROM refresh_tokens")
    for value in stored[0] {
      if case .text(let text) = value { #expect(!text.contains(alice.refreshToken)) }
    }
  }

  @Test func healthAndMetricsNeedNoToken() async throws {
    let server = try TestServer()
    let health = await server.request("GET", "/healthz")
    #expect(health.status == 200)
    #expect(health.text == "ok")
    #expect(health.header("Content-Type") == "text/plain; charset=utf-8")
    let metrics = await server.request("GET", "/metrics")
    #expect(metrics.status == 200)
    #expect(metrics.text.contains("chat_requests_total"))
  }

  @Test func tokensStaySignedAcrossARestartWithTheKeptKey() async throws {
    let folder = try TemporaryFolder()
    var random = SplitMix64(seed: 9)
    let key = try SigningKey.loadOrCreate(inFolder: folder.path, using: &random)
    let location = ServerStore.Location.dataFolder(folder.path)
    let configuration = ServerConfiguration(devMode: true, rateLimit: nil, signingKey: key)
    let first = try TestServer(configuration: configuration, location: location)
    let alice = try await first.login("alice")

    var otherRandom = SplitMix64(seed: 10)
    let reloaded = try SigningKey.loadOrCreate(inFolder: folder.path, using: &otherRandom)
    #expect(reloaded == key)
    let second = try TestServer(
      configuration: ServerConfiguration(devMode: true, rateLimit: nil, signingKey: reloaded),
      location: location, seed: 77)
    #expect(
      await second.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    let refreshed = await second.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(alice.refreshToken)"}"#)
    #expect(refreshed.status == 200)
  }

  @Test func theSigningKeyFileIsOwnerOnly() throws {
    let folder = try TemporaryFolder()
    var random = SplitMix64(seed: 3)
    let key = try SigningKey.loadOrCreate(inFolder: folder.path, using: &random)
    #expect(key.bytes.count == 32)
    let path = folder.path + "/" + SigningKey.fileName
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(key.bytes))

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    _ = try SigningKey.loadOrCreate(inFolder: folder.path, using: &random)
    let tightened = try FileManager.default.attributesOfItem(atPath: path)
    #expect((tightened[.posixPermissions] as? Int) == 0o600)
  }

  @Test func aTruncatedKeyFileIsRefused() throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/" + SigningKey.fileName
    _ = FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]))
    var random = SplitMix64(seed: 3)
    #expect(throws: SigningKeyError.tooShort(3)) {
      try SigningKey.loadOrCreate(inFolder: folder.path, using: &random)
    }
  }
}
