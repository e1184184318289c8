import Foundation
import Hashing
import Support

/// An access key and its secret: what signs a request to an S3-compatible store.
package struct SigV4Credentials: Sendable, Equatable {
  package var accessKeyID: String
  package var secretAccessKey: String

  package init(accessKeyID: String, secretAccessKey: String) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
  }
}

/// A request as Signature V4 sees it: the method, the path (decoded: `/bucket/photos/a b.jpg`),
/// the query's names and values (decoded), and the headers it signs (names any case).
package struct SigV4Request: Sendable, Equatable {
  package var method: String
  package var path: String
  package var query: [(name: String, value: String)]
  package var headers: [(name: String, value: String)]

  package init(
    method: String, path: String, query: [(name: String, value: String)] = [],
    headers: [(name: String, value: String)] = []
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
  }

  package static func == (a: SigV4Request, b: SigV4Request) -> Bool {
    a.method == b.method && a.path == b.path
      && a.query.elementsEqual(b.query) { $0 == $1 }
      && a.headers.elementsEqual(b.headers) { $0 == $1 }
  }
}

/// AWS Signature Version 4 as S3 uses it, query-string form (presigned URLs): signing, and
/// checking what another signer made. Rules a reader could not guess:
/// - S3 encodes the path once (other AWS services twice), every byte but `A–Z a–z 0–9 - . _ ~`
///   as `%XY` in capitals, `/` kept; query names and values the same, `/` included.
/// - A presigned URL signs the `host` header only and the payload as `UNSIGNED-PAYLOAD`: the
///   bytes are not known when the URL is made.
/// - The scope's date is the signing day (UTC); a URL lives `X-Amz-Expires` seconds (at most
///   seven days) from `X-Amz-Date`.
package enum SigV4 {
  package static let algorithm = "AWS4-HMAC-SHA256"
  package static let unsignedPayload = "UNSIGNED-PAYLOAD"
  /// The longest a presigned URL may live, as S3 allows.
  package static let maxExpiry = 7 * 24 * 3600

  /// Where a signature is valid: a day, a region and a service.
  package struct Scope: Sendable, Equatable {
    /// `yyyyMMdd`, UTC.
    package var day: String
    package var region: String
    package var service: String

    package init(day: String, region: String, service: String = "s3") {
      self.day = day
      self.region = region
      self.service = service
    }

    /// `20130524/us-east-1/s3/aws4_request`
    package var text: String { "\(day)/\(region)/\(service)/aws4_request" }
  }

  /// A URL's signing inputs: where it points and what it may do.
  package struct Presign: Sendable, Equatable {
    /// `https` or `http`.
    package var scheme: String
    /// The host, with `:port` when the URL has one: it is the `host` header that is signed.
    package var host: String
    package var request: SigV4Request
    package var region: String
    package var expires: Int

    package init(
      scheme: String, host: String, request: SigV4Request, region: String, expires: Int
    ) {
      self.scheme = scheme
      self.host = host
      self.request = request
      self.region = region
      self.expires = expires
    }
  }

  /// A presigned URL for `presign`, signed at `date` with `credentials`.
  package static func presignedURL(
    _ presign: Presign, credentials: SigV4Credentials, at time: Timestamp
  ) -> String {
    let (amzDate, day) = timestamps(time)
    let scope = Scope(day: day, region: presign.region)
    var query = presign.request.query
    query += [
      ("X-Amz-Algorithm", algorithm),
      ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope.text)"),
      ("X-Amz-Date", amzDate),
      ("X-Amz-Expires", String(presign.expires)),
      ("X-Amz-SignedHeaders", "host"),
    ]
    var request = presign.request
    request.query = query
    request.headers = [("host", presign.host)]
    let signature = self.signature(
      of: request, signedHeaders: ["host"], payloadHash: unsignedPayload, amzDate: amzDate,
      scope: scope, secret: credentials.secretAccessKey)
    // The signature last, as S3's own URLs have it.
    let encodedQuery = canonicalQuery(query) + "&X-Amz-Signature=" + signature
    return "\(presign.scheme)://\(presign.host)\(encode(presign.request.path, keepingSlash: true))?"
      + encodedQuery
  }

  // MARK: - Checking a presigned URL

  /// Why a presigned request is refused.
  package enum Refusal: Error, Equatable, Sendable {
    /// A parameter is missing or unreadable, the algorithm is not SigV4's, or the expiry is
    /// out of range.
    case malformed(String)
    /// No secret is known for the access key.
    case unknownAccessKey
    /// The signature is not the one the secret makes for this request.
    case signatureMismatch
    /// Signed for later than now (more than the allowed clock skew).
    case notYetValid
    case expired
    /// A header-signed request dated more than 15 minutes from now.
    case skewed
    /// The body is not the one whose SHA-256 `x-amz-content-sha256` gives.
    case payloadMismatch
  }

  /// Checks a presigned request: `request.query` holds every parameter as received (decoded),
  /// the signature's too; `request.headers` the headers as received. `secret` gives the secret
  /// of an access key, nil for one not known. The clock skew allowed is 15 minutes, as S3's.
  package static func verifyPresigned(
    _ request: SigV4Request, now: Timestamp, region: String,
    secret: (String) -> String?
  ) -> Result<SigV4Credentials, Refusal> {
    func parameter(_ name: String) -> String? {
      request.query.first { $0.name == name }?.value
    }
    guard parameter("X-Amz-Algorithm") == algorithm else {
      return .failure(.malformed("X-Amz-Algorithm must be \(algorithm)"))
    }
    guard let credential = parameter("X-Amz-Credential"),
      let amzDate = parameter("X-Amz-Date"), let signedDate = parse(amzDate),
      let expiresText = parameter("X-Amz-Expires"), let expires = Int(expiresText),
      let signedHeadersText = parameter("X-Amz-SignedHeaders"),
      let signature = parameter("X-Amz-Signature")
    else { return .failure(.malformed("a presigned URL needs every X-Amz- parameter")) }
    guard (1...maxExpiry).contains(expires) else {
      return .failure(.malformed("X-Amz-Expires must be 1 to \(maxExpiry) seconds"))
    }
    let parts = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 5, parts[4] == "aws4_request", parts[1] == String(amzDate.prefix(8)),
      parts[2] == region, parts[3] == "s3"
    else { return .failure(.malformed("X-Amz-Credential names another scope")) }
    guard let key = secret(parts[0]) else { return .failure(.unknownAccessKey) }
    let signedHeaders = signedHeadersText.split(separator: ";").map(String.init)
    guard signedHeaders.contains("host"), signedHeaders == signedHeaders.sorted() else {
      return .failure(.malformed("X-Amz-SignedHeaders must list host, in order"))
    }
    var signed = request
    signed.query = request.query.filter { $0.name != "X-Amz-Signature" }
    let expected = self.signature(
      of: signed, signedHeaders: signedHeaders, payloadHash: unsignedPayload, amzDate: amzDate,
      scope: Scope(day: parts[1], region: region), secret: key)
    guard Crypto.constantTimeEquals(Array(expected.utf8), Array(signature.lowercased().utf8))
    else { return .failure(.signatureMismatch) }
    if signedDate - now > .seconds(15 * 60) { return .failure(.notYetValid) }
    if now - signedDate > .seconds(expires) { return .failure(.expired) }
    return .success(SigV4Credentials(accessKeyID: parts[0], secretAccessKey: key))
  }

  // MARK: - Signing a request in its header

  /// The headers that sign `request` in the `Authorization` form (how the server calls a
  /// remote store): `x-amz-date`, `x-amz-content-sha256` (`payloadHash`: the body's SHA-256 in
  /// hex, or `UNSIGNED-PAYLOAD`) and `Authorization`, which signs every header of
  /// `request.headers` (`host` among them; a content type, a copy source) and the two others.
  package static func authorizationHeaders(
    for request: SigV4Request, payloadHash: String, region: String,
    credentials: SigV4Credentials, at time: Timestamp
  ) -> [(name: String, value: String)] {
    let (amzDate, day) = timestamps(time)
    let scope = Scope(day: day, region: region)
    let added = [("x-amz-content-sha256", payloadHash), ("x-amz-date", amzDate)]
    var signed = request
    signed.headers += added
    let names = Set(signed.headers.map { $0.name.lowercased() }).sorted()
    let signature = self.signature(
      of: signed, signedHeaders: names, payloadHash: payloadHash, amzDate: amzDate, scope: scope,
      secret: credentials.secretAccessKey)
    return added + [
      (
        "Authorization",
        "\(algorithm) Credential=\(credentials.accessKeyID)/\(scope.text), "
          + "SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"
      )
    ]
  }

  // MARK: - Checking a request signed in its header

  /// Checks a request signed in its `Authorization` header (how S3 SDKs call the store):
  /// `AWS4-HMAC-SHA256 Credential=…/day/region/s3/aws4_request, SignedHeaders=…, Signature=…`,
  /// with `x-amz-date` and `x-amz-content-sha256` (the body's SHA-256 in hex, checked against
  /// `body`, or `UNSIGNED-PAYLOAD`; the `aws-chunked` streaming forms are refused as
  /// malformed). The request's time may be 15 minutes off now either way.
  package static func verifyHeaderSigned(
    _ request: SigV4Request, body: [UInt8], now: Timestamp, region: String,
    secret: (String) -> String?
  ) -> Result<SigV4Credentials, Refusal> {
    func header(_ name: String) -> String? {
      request.headers.first { $0.name.lowercased() == name }?.value
    }
    guard let authorization = header("authorization"),
      authorization.hasPrefix(algorithm + " ")
    else { return .failure(.malformed("Authorization must be \(algorithm)")) }
    var fields: [String: String] = [:]
    for part in authorization.dropFirst(algorithm.count + 1).split(separator: ",") {
      let pair = part.trimmingCharacters(in: .whitespaces).split(
        separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pair.count == 2 else { return .failure(.malformed("Authorization is unreadable")) }
      fields[String(pair[0])] = String(pair[1])
    }
    guard let credential = fields["Credential"], let signedHeadersText = fields["SignedHeaders"],
      let signature = fields["Signature"], let amzDate = header("x-amz-date"),
      let signedDate = parse(amzDate), let payloadHash = header("x-amz-content-sha256")
    else {
      return .failure(
        .malformed(
          "a signed request needs Credential, SignedHeaders, Signature, x-amz-date "
            + "and x-amz-content-sha256"))
    }
    let parts = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 5, parts[4] == "aws4_request", parts[1] == String(amzDate.prefix(8)),
      parts[2] == region, parts[3] == "s3"
    else { return .failure(.malformed("Credential names another scope")) }
    guard let key = secret(parts[0]) else { return .failure(.unknownAccessKey) }
    let signedHeaders = signedHeadersText.split(separator: ";").map(String.init)
    guard signedHeaders.contains("host"), signedHeaders == signedHeaders.sorted(),
      signedHeaders.allSatisfy({ name in request.headers.contains { $0.name.lowercased() == name } }
      )
    else { return .failure(.malformed("SignedHeaders must list host, in order, all present")) }
    if payloadHash.hasPrefix("STREAMING-") {
      return .failure(.malformed("aws-chunked bodies are not supported: send the body whole"))
    }
    let expected = self.signature(
      of: request, signedHeaders: signedHeaders, payloadHash: payloadHash, amzDate: amzDate,
      scope: Scope(day: parts[1], region: region), secret: key)
    guard Crypto.constantTimeEquals(Array(expected.utf8), Array(signature.lowercased().utf8))
    else { return .failure(.signatureMismatch) }
    if signedDate - now > .seconds(15 * 60) || now - signedDate > .seconds(15 * 60) {
      return .failure(.skewed)
    }
    if payloadHash != unsignedPayload && payloadHash != Hex.encode(Crypto.sha256(body)) {
      return .failure(.payloadMismatch)
    }
    return .success(SigV4Credentials(accessKeyID: parts[0], secretAccessKey: key))
  }

  // MARK: - The parts of a signature

  /// The hex signature of `request` (its query without `X-Amz-Signature`).
  package static func signature(
    of request: SigV4Request, signedHeaders: [String], payloadHash: String, amzDate: String,
    scope: Scope, secret: String
  ) -> String {
    let canonical = canonicalRequest(
      request, signedHeaders: signedHeaders, payloadHash: payloadHash)
    let toSign = [
      algorithm, amzDate, scope.text, Hex.encode(Crypto.sha256(Array(canonical.utf8))),
    ].joined(separator: "\n")
    return Hex.encode(
      Crypto.hmacSHA256(key: signingKey(secret: secret, scope: scope), message: Array(toSign.utf8)))
  }

  /// Method, path, query, the signed headers (names in lowercase, values trimmed, inner runs of
  /// spaces made one), their names, the payload's hash: one per line.
  package static func canonicalRequest(
    _ request: SigV4Request, signedHeaders: [String], payloadHash: String
  ) -> String {
    let headers = signedHeaders.map { name in
      let values = request.headers.filter { $0.name.lowercased() == name }.map {
        $0.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
      }
      return "\(name):\(values.joined(separator: ","))\n"
    }
    return [
      request.method, encode(request.path, keepingSlash: true), canonicalQuery(request.query),
      headers.joined(), signedHeaders.joined(separator: ";"), payloadHash,
    ].joined(separator: "\n")
  }

  /// Names and values encoded, sorted by name then value, joined with `&`.
  package static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
    query.map { (encode($0.name, keepingSlash: false), encode($0.value, keepingSlash: false)) }
      .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
      .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
  }

  /// The key of a scope: HMAC-SHA256 of the day, the region, the service and `aws4_request`
  /// in turn, starting from `AWS4` + the secret.
  package static func signingKey(secret: String, scope: Scope) -> [UInt8] {
    var key = Array("AWS4\(secret)".utf8)
    for part in [scope.day, scope.region, scope.service, "aws4_request"] {
      key = Crypto.hmacSHA256(key: key, message: Array(part.utf8))
    }
    return key
  }

  /// SigV4's URI encoding: every UTF-8 byte but `A–Z a–z 0–9 - . _ ~` (and `/` when kept) as
  /// `%XY`, capital hex digits.
  package static func encode(_ text: String, keepingSlash: Bool) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var output: [UInt8] = []
    output.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        output.append(byte)
      case UInt8(ascii: "/") where keepingSlash:
        output.append(byte)
      default:
        output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// `20130524T000000Z` and `20130524` for `time`, in UTC (to the second, rounded down).
  package static func timestamps(_ time: Timestamp) -> (amzDate: String, day: String) {
    let (days, rest) = time.millisecondsSince1970.floorDivided(by: 86_400_000)
    let civil = CivilCalendar.date(days: Int(days))
    let seconds = Int(rest / 1000)
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let day = pad(civil.year, 4) + pad(civil.month, 2) + pad(civil.day, 2)
    let clock = pad(seconds / 3600, 2) + pad(seconds / 60 % 60, 2) + pad(seconds % 60, 2)
    return (day + "T" + clock + "Z", day)
  }

  /// The time of an `X-Amz-Date` (`yyyyMMddTHHmmssZ`); nil when it is not one.
  package static func parse(_ amzDate: String) -> Timestamp? {
    let bytes = Array(amzDate.utf8)
    guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      guard bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
      else { return nil }
      return Int(String(decoding: bytes[range], as: UTF8.self))
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
      (1...12).contains(month), (1...CivilCalendar.daysIn(year: year, month: month)).contains(day),
      hour < 24, minute < 60, second < 60
    else { return nil }
    let days = CivilCalendar.days(year: year, month: month, day: day)
    return Timestamp(secondsSince1970: Int64(days * 86_400 + hour * 3600 + minute * 60 + second))
  }
}
