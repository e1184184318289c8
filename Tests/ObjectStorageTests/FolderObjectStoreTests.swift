import Foundation
import ObjectStorage
import Support
import Testing
import Wire

/// The built-in store's bytes and its S3 front, in-process. (Against an independent S3 client,
/// boto3, through the real binary: `Tests/peers/s3/store_peers.py`.)
@Suite struct FolderObjectStoreTests {
  final class Fixture {
    let folder: String
    let store: FolderObjectStore

    init() throws {
      folder = NSTemporaryDirectory() + "object-store-\(UUID().uuidString)"
      store = try FolderObjectStore(folder: folder, buckets: ["chat-media"])
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }
  }

  @Test func aRangeHeaderIsResolvedAsS3Does() throws {
    func resolve(_ header: String?) throws -> ClosedRange<Int>? {
      try FolderObjectStore.resolve(range: header, size: 100)
    }
    #expect(try resolve(nil) == nil)
    #expect(try resolve("bytes=0-9") == 0...9)
    #expect(try resolve("bytes=90-") == 90...99)
    #expect(try resolve("bytes=-10") == 90...99)
    #expect(try resolve("bytes=-500") == 0...99)
    #expect(try resolve("bytes=50-5000") == 50...99)
    // What S3 ignores (answers the whole object): unreadable, several ranges, reversed.
    for ignored in ["bytes=a-b", "items=0-9", "bytes=0-9,20-29", "bytes=9-0", "bytes=-"] {
      #expect(try resolve(ignored) == nil, "\(ignored)")
    }
    for unsatisfiable in ["bytes=100-", "bytes=100-200", "bytes=-0"] {
      #expect(throws: S3Error.invalidRange) { try resolve(unsatisfiable) }
    }
    #expect(throws: S3Error.invalidRange) {
      try FolderObjectStore.resolve(range: "bytes=-1", size: 0)
    }
  }

  @Test func anObjectIsStoredWholeReadInRangesAndDeleted() throws {
    let f = try Fixture()
    let bytes = Array("the quick brown fox".utf8)
    let info = try f.store.put(bucket: "chat-media", key: "a/b.txt", bytes: bytes, contentType: nil)
    #expect(info.etag == "\"30f3c93e46436deb58ba70816a8ec124\"")  // md5sum of the bytes
    #expect(info.contentType == "binary/octet-stream")
    #expect(try f.store.read(bucket: "chat-media", key: "a/b.txt").1 == bytes)
    #expect(
      try f.store.read(bucket: "chat-media", key: "a/b.txt", range: 4...8).1 == Array("quick".utf8))
    let digest = try f.store.digest(bucket: "chat-media", key: "a/b.txt")
    #expect(digest.size == bytes.count)
    // sha256sum of the bytes.
    #expect(
      Hex.encode(digest.sha256)
        == "9ecb36561341d18eb65484e833efea61edc74b84cf5e6ae1b81c63533e25fc8f")
    #expect(throws: S3Error.noSuchKey) { try f.store.info(bucket: "chat-media", key: "a/c.txt") }
    #expect(throws: S3Error.noSuchBucket) { try f.store.info(bucket: "other", key: "a/b.txt") }
    try f.store.delete(bucket: "chat-media", key: "a/b.txt")
    try f.store.delete(bucket: "chat-media", key: "a/b.txt")
    #expect(throws: S3Error.noSuchKey) { try f.store.info(bucket: "chat-media", key: "a/b.txt") }
  }

  @Test func aMultipartUploadIsPutTogetherInOrderWithS3sETag() throws {
    let f = try Fixture()
    let first = [UInt8](repeating: 1, count: FolderObjectStore.minimumPartSize)
    let last: [UInt8] = [2, 3, 4]
    let id = try f.store.createUpload(bucket: "chat-media", key: "big", contentType: "image/png")
    let lastTag = try f.store.putPart(
      bucket: "chat-media", key: "big", uploadId: id, number: 2, bytes: last)
    let firstTag = try f.store.putPart(
      bucket: "chat-media", key: "big", uploadId: id, number: 1, bytes: first)
    #expect(
      try f.store.parts(bucket: "chat-media", key: "big", uploadId: id).map(\.number) == [1, 2])
    #expect(throws: S3Error.invalidPartOrder) {
      try f.store.complete(
        bucket: "chat-media", key: "big", uploadId: id, parts: [(2, lastTag), (1, firstTag)])
    }
    #expect(throws: S3Error.invalidPart(2)) {
      try f.store.complete(
        bucket: "chat-media", key: "big", uploadId: id, parts: [(1, firstTag), (2, firstTag)])
    }
    let info = try f.store.complete(
      bucket: "chat-media", key: "big", uploadId: id,
      parts: [(1, firstTag), (2, lastTag.replacingOccurrences(of: "\"", with: ""))])
    #expect(info.size == first.count + 3)
    #expect(info.etag.hasSuffix("-2\""))
    #expect(info.contentType == "image/png")
    #expect(
      try f.store.read(
        bucket: "chat-media", key: "big", range: (first.count - 1)...(first.count + 2)
      ).1 == [1, 2, 3, 4])
    #expect(throws: S3Error.noSuchUpload) {
      try f.store.parts(bucket: "chat-media", key: "big", uploadId: id)
    }
  }

  @Test func uploadIDsAreCheckedBeforeAnyFileIsNamed() throws {
    let f = try Fixture()
    for id in ["../../etc", "", String(repeating: "z", count: 64), "abc"] {
      #expect(throws: S3Error.noSuchUpload) {
        try f.store.putPart(bucket: "chat-media", key: "k", uploadId: id, number: 1, bytes: [1])
      }
    }
    let id = try f.store.createUpload(bucket: "chat-media", key: "k", contentType: nil)
    #expect(
      throws: S3Error.invalidArgument(
        "Part number must be an integer between 1 and 10000, inclusive.")
    ) {
      try f.store.putPart(bucket: "chat-media", key: "k", uploadId: id, number: 0, bytes: [1])
    }
  }

  // MARK: - The S3 front

  static let credentials = SigV4Credentials(accessKeyID: "chat-server", secretAccessKey: "s3cr3t")

  /// A request as Wire hands it to the front, made from one of our presigned URLs.
  static func presigned(
    _ method: HTTPMethod, _ key: String, query: [(name: String, value: String)] = [],
    body: [UInt8] = [], headers: HTTPHeaders = [:], at time: Timestamp, expires: Int = 900
  ) -> HTTPRequest {
    let url = SigV4.presignedURL(
      SigV4.Presign(
        scheme: "http", host: "127.0.0.1:9000",
        request: SigV4Request(method: method.rawValue, path: "/chat-media/\(key)", query: query),
        region: "us-east-1", expires: expires),
      credentials: credentials, at: time)
    var headers = headers
    headers.add(name: "Host", value: "127.0.0.1:9000")
    return HTTPRequest(
      method: method, target: String(url.dropFirst("http://127.0.0.1:9000".count)),
      headers: headers, body: body)
  }

  @Test func theFrontServesPresignedRequestsAndRefusesOthersInS3sXML() throws {
    let f = try Fixture()
    let now = Timestamp(secondsSince1970: 1_796_000_000)
    let clock = FixedTime(time: now)
    let front = S3Front(
      store: f.store, region: "us-east-1", credentials: [Self.credentials], clock: clock)
    let put = front.handle(Self.presigned(.put, "photos/a b.jpg", body: [1, 2, 3], at: now))
    #expect(put.status.code == 200)
    #expect(put.headers["ETag"] == "\"5289df737df57326fcdd22597afb1fac\"")
    let get = front.handle(
      Self.presigned(.get, "photos/a b.jpg", headers: ["Range": "bytes=1-"], at: now))
    #expect(get.status.code == 206)
    #expect(get.body == [2, 3])
    #expect(get.headers["Content-Range"] == "bytes 1-2/3")
    let head = front.handle(Self.presigned(.head, "photos/a b.jpg", at: now))
    #expect(head.status.code == 200)
    #expect(head.headContentLength == 3)

    let expired = front.handle(
      Self.presigned(.get, "photos/a b.jpg", at: now - .seconds(901)))
    #expect(expired.status.code == 403)
    #expect(String(decoding: expired.body, as: UTF8.self).contains("<Code>AccessDenied</Code>"))
    let anonymous = front.handle(HTTPRequest(method: .get, target: "/chat-media/photos/a%20b.jpg"))
    #expect(anonymous.status.code == 403)
    let missing = front.handle(Self.presigned(.get, "photos/none.jpg", at: now))
    #expect(missing.status.code == 404)
    #expect(String(decoding: missing.body, as: UTF8.self).contains("<Code>NoSuchKey</Code>"))
    let bucket = front.handle(HTTPRequest(method: .get, target: "/chat-media"))
    #expect(bucket.status.code == 403)
  }

  @Test func theCompletionBodyIsReadForItsPartsInOrder() throws {
    let body = """
      <?xml version="1.0" encoding="UTF-8"?>
      <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
        <Part><ETag>&quot;aa&quot;</ETag><PartNumber>1</PartNumber></Part>
        <Part><PartNumber>2</PartNumber><ChecksumCRC32>AAAA</ChecksumCRC32><ETag>"bb"</ETag></Part>
      </CompleteMultipartUpload>
      """
    let parts = try S3Front.completedParts(Array(body.utf8))
    #expect(parts.map(\.number) == [1, 2])
    #expect(parts.map(\.etag) == ["\"aa\"", "\"bb\""])
    #expect(throws: S3Error.malformedXML) { try S3Front.completedParts(Array("nonsense".utf8)) }
    #expect(throws: S3Error.malformedXML) {
      try S3Front.completedParts(Array("<CompleteMultipartUpload><Part><PartNumber>x".utf8))
    }
  }
}

/// A clock that stands still.
struct FixedTime: TimeSource {
  let time: Timestamp
  func now() -> Timestamp { time }
  func uptime() -> Duration { .zero }
  func sleep(for duration: Duration) async throws {}
}
