import ChatAPI
import Foundation
import Hashing
import Support
import Testing

@testable import ChatServer

@Suite struct CryptoTests {
  @Test func sha256AndHMACMatchPublishedVectors() {
    #expect(
      Hex.encode(Crypto.sha256(Array("abc".utf8)))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    // RFC 4231, test case 2.
    #expect(
      Hex.encode(
        Crypto.hmacSHA256(
          key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  /// SHA-256 fed in pieces (how an upload is hashed from disk or in ranges) is the one-shot
  /// SHA-256, FIPS 180-2's two-block vector included; MD5 (S3's ETags) is RFC 1321's.
  @Test func hashingInPiecesIsHashingAtOnce() {
    let text = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    let hasher = SHA256Hasher()
    for piece in [text[..<5], text[5..<6], text[6...]] { hasher.update(Array(piece)) }
    let digest = Hex.encode(hasher.finish())
    #expect(digest == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(digest == Hex.encode(Crypto.sha256(text)))
    #expect(Hex.encode(SHA256Hasher().finish()) == Hex.encode(Crypto.sha256([])))
    #expect(Hex.encode(Crypto.md5(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
  }

  @Test func constantTimeEqualsComparesLengthAndBytes() {
    #expect(Crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
    #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
    #expect(!Crypto.constantTimeEquals([1, 2], [1, 2, 3]))
    #expect(Crypto.constantTimeEquals([], []))
  }

  @Test func base64URLRoundTripsAndMatchesFoundation() {
    var random = SplitMix64(seed: 4)
    for count in 0..<70 {
      let bytes = random.bytes(count: count)
      let encoded = Base64URL.encode(bytes)
      let foundation = Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      #expect(encoded == foundation)
      #expect(Base64URL.decode(encoded) == bytes)
    }
    #expect(Base64URL.decode("A") == nil)
    #expect(Base64URL.decode("AB=") == nil)
    #expect(Base64URL.decode("A+") == nil)
    #expect(Base64URL.decode("AA") == [0])
    #expect(Base64URL.decode("AB") == nil, "unused bits must be zero")
  }

  @Test func anAccessTokenCarriesItsClaimsUntilItExpires() throws {
    var random = SplitMix64(seed: 8)
    let signer = AccessTokenSigner(key: SigningKey.generate(using: &random))
    let expiry = Timestamp(millisecondsSince1970: 10_000)
    let claims = AccessTokenClaims(userId: "alice", deviceId: "phone", expiresAt: expiry)
    let token = signer.sign(claims)
    #expect(signer.verify(token, now: Timestamp(millisecondsSince1970: 9_999)) == claims)
    #expect(signer.verify(token, now: expiry) == nil)
    let other = AccessTokenSigner(key: SigningKey.generate(using: &random))
    #expect(other.verify(token, now: Timestamp(millisecondsSince1970: 0)) == nil)
    var ofAFamily = claims
    ofAFamily.family = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
    #expect(
      signer.verify(signer.sign(ofAFamily), now: .init(millisecondsSince1970: 0)) == ofAFamily)
  }
}

@Suite struct RateLimiterTests {
  @Test func fullBucketsAreForgottenSoMemoryStaysBounded() {
    var limiter = RateLimiter(limit: RateLimit(burst: 1, perSecond: 1))
    let start = Timestamp(secondsSince1970: 1_000)
    for index in 0..<4_096 { #expect(limiter.take(for: "user\(index)", at: start) == nil) }
    #expect(limiter.trackedUsers == 4_096)
    #expect(limiter.take(for: "user0", at: start) == 1, "an empty bucket is kept")
    let later = start + .seconds(5)
    #expect(limiter.take(for: "newcomer", at: later) == nil)
    #expect(limiter.trackedUsers <= 1)
  }
}
