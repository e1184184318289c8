import Foundation
import Hashing
import ObjectStorage
import Support
import Testing

/// AWS Signature V4 as S3 uses it: against AWS's published example, against botocore's
/// presigner (`Tests/Fixtures/sigv4/botocore-presigned.json`, made and checked by
/// `Tests/peers/s3/botocore_presigned.py`), and our own checker of presigned URLs.
@Suite struct SigV4Tests {
  static let credentials = SigV4Credentials(
    accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  )

  /// S3's documentation, "Authenticating Requests: Using Query Parameters": GET
  /// examplebucket/test.txt, 2013-05-24, 86,400 s; the signature it prints.
  @Test func theExampleOfS3sDocumentationSignsAlike() {
    let url = SigV4.presignedURL(
      SigV4.Presign(
        scheme: "https", host: "examplebucket.s3.amazonaws.com",
        request: SigV4Request(method: "GET", path: "/test.txt"), region: "us-east-1",
        expires: 86_400),
      credentials: Self.credentials, at: Timestamp(secondsSince1970: 1_369_353_600))
    #expect(
      url == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
  }

  struct BotocoreCase: Decodable, CustomTestStringConvertible {
    let name, method, scheme, host, path, region, url: String
    let query: [[String]]
    let expires: Int
    let time: Int64
    var testDescription: String { name }

    var presign: SigV4.Presign {
      SigV4.Presign(
        scheme: scheme, host: host,
        request: SigV4Request(
          method: method, path: path, query: query.map { ($0[0], $0[1]) }),
        region: region, expires: expires)
    }
  }

  struct BotocoreHeaderCase: Decodable, CustomTestStringConvertible {
    let name, method, host, path, body: String
    let query: [[String]]
    let time: Int64
    let headers: [String: String]
    var testDescription: String { name }

    var request: SigV4Request {
      SigV4Request(
        method: method, path: path, query: query.map { ($0[0], $0[1]) },
        headers: [("host", host)])
    }
  }

  struct BotocoreFile: Decodable {
    let accessKeyID: String
    let secretAccessKey: String
    let cases: [BotocoreCase]
    let headerCases: [BotocoreHeaderCase]
  }

  static let botocore: BotocoreFile = {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/sigv4/botocore-presigned.json")
    do {
      return try JSONDecoder().decode(BotocoreFile.self, from: Data(contentsOf: path))
    } catch {
      fatalError("cannot read \(path.path): \(error)")
    }
  }()

  /// Our URL is botocore's: the same signature, and the same URL once the query is put in one
  /// order (botocore keeps an operation's own parameters first, unsorted).
  @Test(arguments: botocore.cases)
  func ourPresignedURLIsBotocores(_ botocore: BotocoreCase) throws {
    #expect(Self.botocore.accessKeyID == Self.credentials.accessKeyID)
    let ours = SigV4.presignedURL(
      botocore.presign, credentials: Self.credentials,
      at: Timestamp(secondsSince1970: botocore.time))
    #expect(try Self.normalised(ours) == Self.normalised(botocore.url))
    #expect(try Self.signature(ours) == Self.signature(botocore.url))
  }

  /// botocore's URLs pass our checker at their signing time, and not once expired.
  @Test(arguments: botocore.cases)
  func botocoresPresignedURLPassesOurCheck(_ botocore: BotocoreCase) throws {
    let request = try Self.received(botocore.url, method: botocore.method)
    let signed = Timestamp(secondsSince1970: botocore.time)
    let secret = { (key: String) in
      key == Self.credentials.accessKeyID ? Self.credentials.secretAccessKey : nil
    }
    #expect(
      SigV4.verifyPresigned(request, now: signed, region: botocore.region, secret: secret)
        == .success(Self.credentials))
    let late = signed + .seconds(botocore.expires + 1)
    #expect(
      SigV4.verifyPresigned(request, now: late, region: botocore.region, secret: secret)
        == .failure(.expired))
  }

  /// Our header signature (how the server calls a remote store) is botocore's, and it passes
  /// our own check, body hash and all; another body does not.
  @Test(arguments: botocore.headerCases)
  func ourHeaderSignatureIsBotocores(_ botocore: BotocoreHeaderCase) {
    let body = Array(botocore.body.utf8)
    let time = Timestamp(secondsSince1970: botocore.time)
    let headers = SigV4.authorizationHeaders(
      for: botocore.request, payloadHash: Hex.encode(Crypto.sha256(body)), region: "us-east-1",
      credentials: Self.credentials, at: time)
    #expect(
      headers.first { $0.name == "Authorization" }?.value == botocore.headers["Authorization"])
    #expect(headers.first { $0.name == "x-amz-date" }?.value == botocore.headers["X-Amz-Date"])
    #expect(
      headers.first { $0.name == "x-amz-content-sha256" }?.value
        == botocore.headers["X-Amz-Content-SHA256"])
    var received = botocore.request
    received.headers += headers
    let secret = { (key: String) in
      key == Self.credentials.accessKeyID ? Self.credentials.secretAccessKey : nil
    }
    #expect(
      SigV4.verifyHeaderSigned(received, body: body, now: time, region: "us-east-1", secret: secret)
        == .success(Self.credentials))
    #expect(
      SigV4.verifyHeaderSigned(
        received, body: body + [0x20], now: time, region: "us-east-1", secret: secret)
        == .failure(.payloadMismatch))
    #expect(
      SigV4.verifyHeaderSigned(
        received, body: body, now: time + .seconds(16 * 60), region: "us-east-1", secret: secret)
        == .failure(.skewed))
  }

  /// What the checker refuses: every change to what was signed, another secret, an unknown
  /// key, a URL used before its time, and parameters out of shape.
  @Test func theCheckerRefusesWhatWasNotSigned() throws {
    let time = Timestamp(secondsSince1970: 1_796_000_000)
    let presign = SigV4.Presign(
      scheme: "http", host: "127.0.0.1:9000",
      request: SigV4Request(
        method: "PUT", path: "/chat-media/media/a b.jpg",
        query: [("uploadId", "u1"), ("partNumber", "2")]),
      region: "us-east-1", expires: 900)
    let url = SigV4.presignedURL(presign, credentials: Self.credentials, at: time)
    let good = try Self.received(url, method: "PUT")
    let secret = { (key: String) in
      key == Self.credentials.accessKeyID ? Self.credentials.secretAccessKey : nil
    }
    func verdict(_ request: SigV4Request, now: Timestamp = time, region: String = "us-east-1")
      -> Result<SigV4Credentials, SigV4.Refusal>
    {
      SigV4.verifyPresigned(request, now: now, region: region, secret: secret)
    }
    #expect(verdict(good) == .success(Self.credentials))
    #expect(verdict(good, now: time + .seconds(900)) == .success(Self.credentials))

    var other = good
    other.method = "GET"
    #expect(verdict(other) == .failure(.signatureMismatch))
    other = good
    other.path = "/chat-media/media/b b.jpg"
    #expect(verdict(other) == .failure(.signatureMismatch))
    other = good
    other.query = other.query.map { $0.name == "partNumber" ? ($0.name, "3") : $0 }
    #expect(verdict(other) == .failure(.signatureMismatch))
    other = good
    other.query.append(("acl", "public-read"))
    #expect(verdict(other) == .failure(.signatureMismatch))
    other = good
    other.headers = [("Host", "127.0.0.1:9001")]
    #expect(verdict(other) == .failure(.signatureMismatch))
    other = good
    other.query = other.query.map { $0.name == "X-Amz-Expires" ? ($0.name, "86400") : $0 }
    #expect(verdict(other) == .failure(.signatureMismatch))

    #expect(
      SigV4.verifyPresigned(good, now: time, region: "us-east-1") { _ in "another secret" }
        == .failure(.signatureMismatch))
    #expect(
      SigV4.verifyPresigned(good, now: time, region: "us-east-1") { _ in nil }
        == .failure(.unknownAccessKey))
    #expect(verdict(good, now: time + .seconds(901)) == .failure(.expired))
    #expect(verdict(good, now: time - .seconds(16 * 60)) == .failure(.notYetValid))
    #expect(verdict(good, now: time - .seconds(14 * 60)) == .success(Self.credentials))
    if case .failure(.malformed) = verdict(good, region: "eu-west-1") {
    } else {
      Issue.record("another region's URL was not refused as malformed")
    }
    for name in ["X-Amz-Signature", "X-Amz-Date", "X-Amz-Credential", "X-Amz-Expires"] {
      other = good
      other.query.removeAll { $0.name == name }
      if case .failure(.malformed) = verdict(other) {
      } else {
        Issue.record("a URL without \(name) was not refused as malformed")
      }
    }
    for expires in ["0", "604801", "-5", "soon"] {
      other = good
      other.query = other.query.map { $0.name == "X-Amz-Expires" ? ($0.name, expires) : $0 }
      if case .failure(.malformed) = verdict(other) {
      } else {
        Issue.record("X-Amz-Expires=\(expires) was not refused as malformed")
      }
    }
  }

  @Test func amzDatesReadAndWriteInUTC() {
    #expect(SigV4.timestamps(Timestamp(secondsSince1970: 0)) == ("19700101T000000Z", "19700101"))
    #expect(
      SigV4.timestamps(Timestamp(secondsSince1970: 2_147_483_648))
        == ("20380119T031408Z", "20380119"))
    #expect(
      SigV4.timestamps(Timestamp(millisecondsSince1970: 1_709_251_199_999))
        == ("20240229T235959Z", "20240229"))
    #expect(SigV4.parse("20240229T235959Z") == Timestamp(secondsSince1970: 1_709_251_199))
    #expect(SigV4.parse("20380119T031408Z") == Timestamp(secondsSince1970: 2_147_483_648))
    for bad in [
      "20230229T000000Z", "20240431T000000Z", "20241301T000000Z", "20240101T240000Z",
      "20240101T000000", "2024-01-01T00:00:00Z", "20240101 000000Z", "+0240101T000000Z", "",
    ] {
      #expect(SigV4.parse(bad) == nil, "\(bad)")
    }
  }

  @Test func theURIEncodingKeepsOnlyTheUnreservedBytes() {
    #expect(SigV4.encode("a-Z_0.9~", keepingSlash: false) == "a-Z_0.9~")
    #expect(SigV4.encode("a/b c", keepingSlash: true) == "a/b%20c")
    #expect(SigV4.encode("a/b c", keepingSlash: false) == "a%2Fb%20c")
    #expect(SigV4.encode("é+=", keepingSlash: false) == "%C3%A9%2B%3D")
  }

  // MARK: - Helpers

  /// The request a store receives for `url`: path and query decoded, the host header.
  static func received(_ url: String, method: String) throws -> SigV4Request {
    let parts = try #require(URLComponents(string: url))
    let host =
      parts.port.map { "\(parts.percentEncodedHost ?? ""):\($0)" } ?? parts.percentEncodedHost ?? ""
    return SigV4Request(
      method: method, path: parts.path,
      query: (parts.queryItems ?? []).map { ($0.name, $0.value ?? "") },
      headers: [("Host", host)])
  }

  /// `url` with its query's pairs in one order.
  static func normalised(_ url: String) throws -> String {
    let parts = try #require(URLComponents(string: url))
    let query = (parts.percentEncodedQuery ?? "").split(separator: "&").sorted()
    return "\(parts.scheme ?? "")://\(parts.percentEncodedHost ?? ""):\(parts.port ?? 0)"
      + parts.percentEncodedPath + "?" + query.joined(separator: "&")
  }

  static func signature(_ url: String) throws -> String? {
    try #require(URLComponents(string: url)).queryItems?.first { $0.name == "X-Amz-Signature" }?
      .value
  }
}
