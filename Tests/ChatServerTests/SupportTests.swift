import ChatDomain
import Foundation
import Testing

@testable import ChatServer

@Suite struct JSONTests {
  @Test func parsesEveryKindOfValue() throws {
    let value = try JSONParser.parse(
      #" { "a" : [1, -2, 3.5, 1e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {} } "#
    )
    #expect(
      value.text == #"{"a":[1,-2,3.5,1000.0,true,false,null,"x\"\\/\u0008\u000c\n\r\té😀"],"b":{}}"#)
  }

  @Test func refusesWhatIsNotStrictJSON() {
    let invalid = [
      "", "{", "}", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "01", "1.", ".5", "-", "+1", "1e",
      "tru", "nul", #""unterminated"#, "\"tab\there\"", #""\x""#, #""\ud800""#, #""\udc00""#,
      #""\ud800\u0041""#, #"{"a":1,"a":2}"#, "1 2", "[1] x", "//", "NaN", "'a'",
      String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ]
    for text in invalid {
      #expect(throws: JSONSyntaxError.self, "\(text)") { try JSONParser.parse(text) }
    }
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    #expect(throws: Never.self) {
      try JSONParser.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
    }
  }

  @Test func integersOutsideIntBecomeNumbers() throws {
    guard case .integer(let small) = try JSONParser.parse("9223372036854775807") else {
      Issue.record("Int.max is an integer")
      return
    }
    #expect(small == Int.max)
    guard case .number(let big) = try JSONParser.parse("9223372036854775808") else {
      Issue.record("Int.max + 1 is a number")
      return
    }
    #expect(big == 9_223_372_036_854_775_808)
  }

  @Test func writingEscapesOnlyWhatJSONRequiresAndFoundationReadsItBack() throws {
    let text = "q\" b\\ nl\n cr\r tab\t nul\u{0} us\u{1F} del\u{7F} é 😀 \u{2028} /"
    let written = JSON.object(["k": .string(text)]).text
    let read = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: String]
    #expect(read?["k"].map { Array($0.utf8) } == Array(text.utf8))
    #expect(written.contains("é 😀"))
  }
}

@Suite struct TimestampTests {
  @Test func rfc3339MatchesFoundationsFormatter() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    var random = SplitMix64(seed: 11)
    var samples: [Int64] = [
      0, 1, 999, 1_000, 86_399_999, 86_400_000, 951_782_400_000, 4_107_542_399_999,
    ]
    for _ in 0..<2_000 { samples.append(Int64.random(in: 0...4_102_444_800_000, using: &random)) }
    for milliseconds in samples {
      let ours = Timestamp(millisecondsSince1970: milliseconds).rfc3339
      let theirs = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
      #expect(ours == theirs, "\(milliseconds)")
    }
  }

  @Test func formatsTheExampleOfTheContract() {
    #expect(
      Timestamp(millisecondsSince1970: 1_796_047_323_123).rfc3339 == "2026-11-30T14:02:03.123Z")
    #expect(Timestamp(nanosecondsSince1970: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
  }
}

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
  }
}

@Suite struct IdentifierTests {
  @Test func userIdsAreOneTo64OfTheAllowedCharacters() {
    for valid in ["a", "alice", "a.b_c-9", String(repeating: "z", count: 64)] {
      #expect(Identifiers.isValidUserID(valid), "\(valid)")
    }
    for invalid in ["", "Alice", "al ice", "al/ice", "é", String(repeating: "z", count: 65), "a\n"]
    {
      #expect(!Identifiers.isValidUserID(invalid), "\(invalid)")
    }
  }

  @Test func uuidsAreCanonicalisedToLowercase() {
    #expect(
      Identifiers.canonicalUUID("0193A3C4-5D6E-7F80-9A1B-2C3D4E5F6A7B")
        == "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b")
    for invalid in [
      "", "0193a3c45d6e7f809a1b2c3d4e5f6a7b", "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7",
      "{0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b}",
      "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7g", "0193a3c4_5d6e-7f80-9a1b-2c3d4e5f6a7b",
    ] {
      #expect(Identifiers.canonicalUUID(invalid) == nil, "\(invalid)")
    }
  }

  @Test func generatedUUIDsAreVersion4AndValid() {
    var random = SplitMix64(seed: 1)
    for _ in 0..<100 {
      let uuid = random.uuidString()
      #expect(Identifiers.canonicalUUID(uuid) == uuid)
      #expect(Array(uuid)[14] == "4")
      #expect("89ab".contains(Array(uuid)[19]))
    }
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
