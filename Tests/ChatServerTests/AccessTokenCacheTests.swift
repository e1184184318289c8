import ChatAPI
import Support
import Testing

@testable import ChatServer

/// `AccessTokenCache`: a token's signature checked once, its expiry every time, and the
/// families revoked refused until they may be forgotten.
@Suite struct AccessTokenCacheTests {
  let now = TestServer.start
  let signer: AccessTokenSigner

  init() throws {
    signer = AccessTokenSigner(key: try SigningKey(bytes: Array(repeating: 7, count: 32)))
  }

  func token(family: String? = "f1", expiresIn ttl: Duration = .seconds(900)) -> String {
    signer.sign(
      AccessTokenClaims(userId: "alice", deviceId: "phone", expiresAt: now + ttl, family: family))
  }

  @Test func onlyABearerHeaderWithAWellSignedTokenPasses() {
    var cache = AccessTokenCache(signer: signer)
    func user(_ header: String?) -> String? { cache.claims(ofHeader: header, at: now)?.userId }
    let token = token()
    #expect(user("Bearer \(token)") == "alice")
    #expect(user("bearer \(token)") == "alice")
    #expect(user(nil) == nil)
    #expect(user("Bearer") == nil)
    #expect(user("Bearer ") == nil)
    #expect(user("Basic \(token)") == nil)
    #expect(user("Bearer \(token)x") == nil)
  }

  @Test func aTokenCheckedOnceStillExpires() {
    var cache = AccessTokenCache(signer: signer)
    let token = token(expiresIn: .seconds(10))
    func passes(at time: Timestamp) -> Bool {
      cache.claims(ofHeader: "Bearer \(token)", at: time) != nil
    }
    #expect(passes(at: now))
    #expect(passes(at: now + .seconds(9)))
    #expect(!passes(at: now + .seconds(10)))
  }

  @Test func aFullCacheStartsAgainAndStillAnswers() {
    var cache = AccessTokenCache(signer: signer, limit: 2)
    func passes(_ token: String) -> Bool {
      cache.claims(ofHeader: "Bearer \(token)", at: now) != nil
    }
    let tokens = (1...5).map { token(expiresIn: .seconds($0 * 100)) }
    for token in tokens + tokens { #expect(passes(token)) }
  }

  @Test func aRevokedFamilyIsRefusedUntilItMayBeForgotten() {
    var cache = AccessTokenCache(signer: signer)
    func passes(_ token: String, at time: Timestamp) -> Bool {
      cache.claims(ofHeader: "Bearer \(token)", at: time) != nil
    }
    let revoked = token(family: "f1")
    let other = token(family: "f2")
    cache.revoke(RevokedFamily(family: "f1", forgetAfter: now + .seconds(60)), at: now)
    #expect(!passes(revoked, at: now))
    #expect(passes(other, at: now))
    #expect(!passes(revoked, at: now + .seconds(59)))
    #expect(passes(revoked, at: now + .seconds(60)))
  }

  @Test func aTokenWithoutAFamilyCannotBeRevoked() {
    var cache = AccessTokenCache(signer: signer)
    cache.revoke(RevokedFamily(family: "f1", forgetAfter: now + .seconds(60)), at: now)
    let claims = cache.claims(ofHeader: "Bearer \(token(family: nil))", at: now)
    #expect(claims?.family == nil)
    #expect(claims?.userId == "alice")
  }

  @Test func theStoresFamiliesMergeKeepingTheLatestAndAreReadAgainAfterACut() {
    var cache = AccessTokenCache(signer: signer)
    #expect(!cache.isLoaded)
    cache.revoke(RevokedFamily(family: "f1", forgetAfter: now + .seconds(120)), at: now)
    cache.load([RevokedFamily(family: "f1", forgetAfter: now + .seconds(60))])
    #expect(cache.isLoaded)
    let claims = cache.claims(ofHeader: "Bearer \(token(family: "f1"))", at: now + .seconds(90))
    #expect(claims == nil)
    cache.forgetLoaded()
    #expect(!cache.isLoaded)
  }
}
