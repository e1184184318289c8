import Foundation
import Support
import Wire

/// The built-in store's S3 REST API, path-style (`/bucket/key`), on Wire's HTTP server: what
/// the server's presigned URLs and any S3 SDK call. Every request is signed, in the query
/// (a presigned URL) or in the `Authorization` header; errors are S3's XML.
///
/// Operations: `PutObject`, `GetObject` (one `Range`), `HeadObject`, `DeleteObject`,
/// `CreateMultipartUpload`, `UploadPart`, `ListParts`, `CompleteMultipartUpload`,
/// `AbortMultipartUpload`. Anything else is `501 NotImplemented`.
package struct S3Front: Sendable {
  package let store: FolderObjectStore
  package let region: String
  private let credentials: [SigV4Credentials]
  private let clock: any TimeSource
  /// Hears a line per request: its method, the multipart upload and part it concerns, the
  /// status (never a key, a signature or a byte of the object). The store's part log: which
  /// parts were stored, and how often.
  private let log: any LogSink

  package init(
    store: FolderObjectStore, region: String, credentials: [SigV4Credentials],
    clock: any TimeSource = SystemTimeSource(), log: any LogSink = DiscardingLogSink()
  ) {
    self.store = store
    self.region = region
    self.credentials = credentials
    self.clock = clock
    self.log = log
  }

  /// A server for the store alone, with bodies up to `maxBodyBytes` (a part, or a whole
  /// object put at once).
  package func server(configuration: HTTPServer.Configuration, maxBodyBytes: Int) -> HTTPServer {
    var configuration = configuration
    configuration.limits.body = maxBodyBytes
    return HTTPServer(configuration: configuration) { request in handle(request) }
  }

  package func handle(_ request: HTTPRequest) -> HTTPResponse {
    let response = respond(to: request)
    let query = request.queryParameters
    var fields: [(String, String)] = [
      ("method", request.method.rawValue), ("status", "\(response.status.code)"),
    ]
    if let upload = query["uploadId"] { fields.append(("upload", upload)) }
    if let part = query["partNumber"] { fields.append(("part", part)) }
    log.write(LogRecord(.info, "object_store.request", fields))
    return response
  }

  private func respond(to request: HTTPRequest) -> HTTPResponse {
    let resource = request.path
    do {
      guard let path = percentDecode(request.path[...], plusIsSpace: false) else {
        throw S3Error.invalidArgument("The path is not valid percent-encoded UTF-8.")
      }
      try authenticate(request, path: path)
      let slash = path.dropFirst().firstIndex(of: "/")
      let bucket = String(path.dropFirst()[..<(slash ?? path.endIndex)])
      let key = slash.map { String(path[path.index(after: $0)...]) } ?? ""
      guard !bucket.isEmpty, !key.isEmpty else {
        throw S3Error.notImplemented("\(request.method.rawValue) on a bucket")
      }
      return try route(request, bucket: bucket, key: key)
    } catch let error as S3Error {
      return Self.error(error, resource: resource)
    } catch {
      return Self.error(.internalError("\(error)"), resource: resource)
    }
  }

  private func route(_ request: HTTPRequest, bucket: String, key: String) throws -> HTTPResponse {
    let query = request.queryParameters
    let uploadId = query["uploadId"]
    switch (request.method, uploadId) {
    case (.post, nil) where query["uploads"] != nil:
      let id = try store.createUpload(
        bucket: bucket, key: key, contentType: request.headers["content-type"])
      return Self.xml(
        "InitiateMultipartUploadResult",
        "<Bucket>\(Self.escape(bucket))</Bucket><Key>\(Self.escape(key))</Key>"
          + "<UploadId>\(id)</UploadId>")
    case (.put, let id?):
      guard let number = query["partNumber"].flatMap({ Int($0) }) else {
        throw S3Error.invalidArgument("partNumber must be an integer.")
      }
      let etag = try store.putPart(
        bucket: bucket, key: key, uploadId: id, number: number, bytes: request.body)
      return HTTPResponse(status: .ok, headers: ["ETag": etag])
    case (.get, let id?):
      let parts = try store.parts(bucket: bucket, key: key, uploadId: id)
      let listed = parts.map {
        "<Part><PartNumber>\($0.number)</PartNumber>"
          + "<LastModified>\($0.lastModified.rfc3339)</LastModified>"
          + "<ETag>\(Self.escape($0.etag))</ETag><Size>\($0.size)</Size></Part>"
      }
      return Self.xml(
        "ListPartsResult",
        "<Bucket>\(Self.escape(bucket))</Bucket><Key>\(Self.escape(key))</Key>"
          + "<UploadId>\(id)</UploadId><PartNumberMarker>0</PartNumberMarker>"
          + "<NextPartNumberMarker>\(parts.last?.number ?? 0)</NextPartNumberMarker>"
          + "<MaxParts>\(FolderObjectStore.maxPartNumber)</MaxParts>"
          + "<IsTruncated>false</IsTruncated>" + listed.joined())
    case (.post, let id?):
      let info = try store.complete(
        bucket: bucket, key: key, uploadId: id, parts: try Self.completedParts(request.body))
      return Self.xml(
        "CompleteMultipartUploadResult",
        "<Location>/\(Self.escape(bucket))/\(Self.escape(key))</Location>"
          + "<Bucket>\(Self.escape(bucket))</Bucket><Key>\(Self.escape(key))</Key>"
          + "<ETag>\(Self.escape(info.etag))</ETag>")
    case (.delete, let id?):
      try store.abort(bucket: bucket, key: key, uploadId: id)
      return HTTPResponse(status: .noContent)
    case (.put, nil):
      let info = try store.put(
        bucket: bucket, key: key, bytes: request.body,
        contentType: request.headers["content-type"])
      return HTTPResponse(status: .ok, headers: ["ETag": info.etag])
    case (.get, nil), (.head, nil):
      let info = try store.info(bucket: bucket, key: key)
      let range = try FolderObjectStore.resolve(range: request.headers["range"], size: info.size)
      // A signed `response-content-type` (the server's presigned GET) says what the bytes
      // are, whatever they were uploaded as; no browser guesses otherwise.
      var headers: HTTPHeaders = [
        "Content-Type": query["response-content-type"] ?? info.contentType, "ETag": info.etag,
        "Accept-Ranges": "bytes", "Last-Modified": Self.httpDate(info.lastModified),
        "X-Content-Type-Options": "nosniff",
      ]
      if let range {
        headers.add(
          name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(info.size)"
        )
      }
      let status: HTTPStatus = range == nil ? .ok : HTTPStatus(code: 206)
      guard request.method == .get else {
        var response = HTTPResponse(status: status, headers: headers)
        response.headContentLength = range?.count ?? info.size
        return response
      }
      let (_, bytes) = try store.read(bucket: bucket, key: key, range: range)
      return HTTPResponse(status: status, headers: headers, body: bytes)
    case (.delete, nil):
      try store.delete(bucket: bucket, key: key)
      return HTTPResponse(status: .noContent)
    default:
      throw S3Error.notImplemented("\(request.method.rawValue) with these parameters")
    }
  }

  /// A presigned URL (`X-Amz-Signature` in the query) or a signed `Authorization` header.
  private func authenticate(_ request: HTTPRequest, path: String) throws(S3Error) {
    let signed = SigV4Request(
      method: request.method.rawValue, path: path,
      query: request.queryItems.map { ($0.name, $0.value) },
      headers: request.headers.fields.map { ($0.name, $0.value) })
    let secret = { (key: String) in
      credentials.first { $0.accessKeyID == key }?.secretAccessKey
    }
    let now = clock.now()
    let verdict =
      request.queryItems.contains { $0.name == "X-Amz-Signature" }
      ? SigV4.verifyPresigned(signed, now: now, region: region, secret: secret)
      : request.headers["authorization"] != nil
        ? SigV4.verifyHeaderSigned(
          signed, body: request.body, now: now, region: region, secret: secret)
        : .failure(.malformed("anonymous access is not allowed: sign the request"))
    switch verdict {
    case .success: return
    case .failure(.malformed(let why)): throw .accessDenied(why)
    case .failure(.unknownAccessKey): throw .invalidAccessKeyId
    case .failure(.signatureMismatch): throw .signatureDoesNotMatch
    case .failure(.notYetValid): throw .accessDenied("Request is not valid yet")
    case .failure(.expired): throw .accessDenied("Request has expired")
    case .failure(.skewed): throw .requestTimeTooSkewed
    case .failure(.payloadMismatch): throw .badDigest
    }
  }

  // MARK: - XML

  /// The parts a `CompleteMultipartUpload` body names, in its order. Elements other than
  /// `PartNumber` and `ETag` (checksums) are ignored.
  package static func completedParts(_ body: [UInt8]) throws(S3Error) -> [(
    number: Int, etag: String
  )] {
    let text = String(decoding: body, as: UTF8.self)
    guard text.contains("<CompleteMultipartUpload") else { throw .malformedXML }
    return try S3XML.elements("Part", in: text[...]).map { element throws(S3Error) in
      guard let number = S3XML.text(of: "PartNumber", in: element).flatMap({ Int($0) }),
        let etag = S3XML.text(of: "ETag", in: element)
      else { throw .malformedXML }
      return (number, etag)
    }
  }

  static func escape(_ text: String) -> String { S3XML.escape(text) }

  private static func xml(_ root: String, _ content: String, status: HTTPStatus = .ok)
    -> HTTPResponse
  {
    HTTPResponse(
      status: status, headers: ["Content-Type": "application/xml"],
      body: Array(
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          + "<\(root) xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(content)</\(root)>")
          .utf8))
  }

  static func error(_ error: S3Error, resource: String) -> HTTPResponse {
    var response = HTTPResponse(
      status: HTTPStatus(code: error.status), headers: ["Content-Type": "application/xml"],
      body: Array(
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(error.code)</Code>"
          + "<Message>\(escape(error.message))</Message>"
          + "<Resource>\(escape(resource))</Resource></Error>").utf8))
    if case .invalidRange = error {
      response.headers.add(name: "Content-Range", value: "bytes */*")
    }
    return response
  }

  /// `Wed, 02 Dec 2026 08:15:42 GMT` (RFC 9110's IMF-fixdate).
  static func httpDate(_ time: Timestamp) -> String {
    let (days, rest) = time.millisecondsSince1970.floorDivided(by: 86_400_000)
    let civil = CivilCalendar.date(days: Int(days))
    let seconds = Int(rest / 1000)
    let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(weekdays[Int(days.floorDivided(by: 7).remainder)]), \(two(civil.day)) "
      + "\(months[civil.month - 1]) \(civil.year) \(two(seconds / 3600)):"
      + "\(two(seconds / 60 % 60)):\(two(seconds % 60)) GMT"
  }
}
