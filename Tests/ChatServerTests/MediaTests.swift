import ChatAPI
import Foundation
import Hashing
import Support
import Testing

@testable import ChatServer

/// The media routes' rules that need time or a failing store (the rest, against the real binary
/// and its built-in store: the contract's media groups).
@Suite struct MediaTests {
  /// Uploads `bytes` as an image and posts it in a new conversation of alice and bob; the
  /// media key, the conversation and bob's session.
  static func postedPhoto(
    _ server: TestServer, _ storage: MemoryMediaStorage, bytes: [UInt8]
  ) async throws -> (key: String, conversation: String, bob: Session) {
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    let sha = Hex.encode(Crypto.sha256(bytes))
    let created = await server.request(
      "POST", "/v1/media/uploads", token: alice.accessToken,
      body: try TestJSON.encode([
        "kind": "image", "contentType": "image/png", "byteCount": bytes.count, "sha256": sha,
      ]))
    let key = try #require(created.object["mediaKey"] as? String)
    let part = try #require((created.object["parts"] as? [[String: Any]])?.first)
    storage.put(bytes, at: try #require(part["url"] as? String))
    let completed = await server.request(
      "POST", "/v1/media/uploads/\(key)/complete", token: alice.accessToken,
      body: #"{"parts":[]}"#)
    #expect(completed.status == 200)
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let posted = await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: alice.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString, "text": "the view",
        "media": [
          "key": key, "kind": "image", "contentType": "image/png", "byteCount": bytes.count,
          "sha256": sha, "width": 4, "height": 3, "thumbnail": "AAEC",
        ],
      ]))
    #expect(posted.status == 201, "\(posted.text)")
    return (key, conversation, bob)
  }

  @Test func pastTheRetentionADownloadIsGoneAndTheBytesWithIt() async throws {
    let storage = MemoryMediaStorage()
    var configuration = TestServer.defaultConfiguration
    configuration.mediaRetentionDays = 30
    let server = try TestServer(configuration: configuration, media: storage)
    let (key, conversation, _) = try await Self.postedPhoto(server, storage, bytes: [1, 2, 3])
    server.clock.shiftWallClock(by: .seconds(30 * 86_400))
    // A month on, bob signs in again (the access token lived 15 minutes).
    var bob = try await server.login("bob")
    let inTime = await server.request("GET", "/v1/media/\(key)", token: bob.accessToken)
    #expect(inTime.status == 200)
    #expect(inTime.object["url"] as? String == "memory://get/media/\(key)")
    #expect(storage.holds(key))
    server.clock.shiftWallClock(by: .seconds(1))
    bob = try await server.login("bob")
    let late = await server.request("GET", "/v1/media/\(key)", token: bob.accessToken)
    #expect(late.status == 410)
    #expect(late.errorCode == "gone")
    #expect(!storage.holds(key))
    let page = await server.messages(in: conversation, as: bob)
    let media = page.items.last?["media"] as? [String: Any]
    #expect(page.items.last?["text"] as? String == "the view")
    #expect(media?["thumbnail"] as? String == "AAEC")
  }

  /// The hourly sweep: uploads never completed or never sent go a day on, bytes and all;
  /// media past the retention loses its bytes (the message and thumbnail stay; 410).
  @Test func theSweepDeletesExpiredBytesAndUploadsNeverUsed() async throws {
    let storage = MemoryMediaStorage()
    var configuration = TestServer.defaultConfiguration
    configuration.mediaRetentionDays = 30
    let server = try TestServer(configuration: configuration, media: storage)
    let (key, _, _) = try await Self.postedPhoto(server, storage, bytes: [1, 2, 3])
    let alice = try await server.login("alice")
    func create(_ bytes: [UInt8]) async throws -> (key: String, url: String) {
      let created = await server.request(
        "POST", "/v1/media/uploads", token: alice.accessToken,
        body: try TestJSON.encode([
          "kind": "file", "contentType": "text/plain", "byteCount": bytes.count,
          "sha256": Hex.encode(Crypto.sha256(bytes)),
        ]))
      let part = try #require((created.object["parts"] as? [[String: Any]])?.first)
      return (
        try #require(created.object["mediaKey"] as? String), try #require(part["url"] as? String)
      )
    }
    let unused = try await create([7, 7])
    storage.put([7, 7], at: unused.url)
    let completed = await server.request(
      "POST", "/v1/media/uploads/\(unused.key)/complete", token: alice.accessToken,
      body: #"{"parts":[]}"#)
    #expect(completed.status == 200)
    let abandoned = try await create([8])
    storage.put([8], at: abandoned.url)
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 0)

    server.clock.shiftWallClock(by: .seconds(86_400 + 1))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 2)
    #expect(!storage.holds(unused.key))
    #expect(!storage.holdsAny(abandoned.key))
    #expect(storage.holds(key))
    let later = try await server.login("alice")
    let status = await server.request(
      "GET", "/v1/media/uploads/\(abandoned.key)", token: later.accessToken)
    #expect(status.status == 404)

    server.clock.shiftWallClock(by: .seconds(29 * 86_400))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 1)
    #expect(!storage.holds(key))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 0)
    let bob = try await server.login("bob")
    let gone = await server.request("GET", "/v1/media/\(key)", token: bob.accessToken)
    #expect(gone.status == 410)
  }

  /// API.md Part 3: forwarded media shares its bytes, which live while any message carrying
  /// them is within the retention: the sweep keeps them for a forward sent later than the
  /// original, and takes them once the forward is past the retention too.
  @Test func theSweepKeepsBytesAForwardWithinTheRetentionStillCarries() async throws {
    let storage = MemoryMediaStorage()
    var configuration = TestServer.defaultConfiguration
    configuration.mediaRetentionDays = 30
    let server = try TestServer(configuration: configuration, media: storage)
    let (key, conversation, _) = try await Self.postedPhoto(server, storage, bytes: [1, 2, 3])
    server.clock.shiftWallClock(by: .seconds(20 * 86_400))
    let alice = try await server.login("alice")
    let page = await server.messages(in: conversation, as: alice)
    let original = try #require(page.items.last?["clientMessageId"] as? String)
    let other = try await server.createConversation(by: alice, with: ["carol"])
    let forwarded = await server.request(
      "POST", "/v1/conversations/\(other)/messages", token: alice.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString,
        "forwardOf": ["conversationId": conversation, "clientMessageId": original],
      ]))
    #expect(forwarded.status == 201, "\(forwarded.text)")
    // 31 days after the original, 11 after the forward: the bytes stay.
    server.clock.shiftWallClock(by: .seconds(11 * 86_400))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 0)
    #expect(storage.holds(key))
    let carol = try await server.login("carol")
    #expect(await server.request("GET", "/v1/media/\(key)", token: carol.accessToken).status == 200)
    // Past the forward's retention too: they go.
    server.clock.shiftWallClock(by: .seconds(20 * 86_400))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 1)
    #expect(!storage.holds(key))
  }

  /// A forward of a photo whose bytes the retention already took carries its description, and
  /// its download says 410 like the original's: the retention does not start again.
  @Test func aForwardOfAPhotoPastTheRetentionDownloadsNothing() async throws {
    let storage = MemoryMediaStorage()
    var configuration = TestServer.defaultConfiguration
    configuration.mediaRetentionDays = 30
    let server = try TestServer(configuration: configuration, media: storage)
    let (key, conversation, _) = try await Self.postedPhoto(server, storage, bytes: [1, 2, 3])
    server.clock.shiftWallClock(by: .seconds(31 * 86_400))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 1)
    let alice = try await server.login("alice")
    let page = await server.messages(in: conversation, as: alice)
    let original = try #require(page.items.last?["clientMessageId"] as? String)
    let other = try await server.createConversation(by: alice, with: ["carol"])
    let forwarded = await server.request(
      "POST", "/v1/conversations/\(other)/messages", token: alice.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString,
        "forwardOf": ["conversationId": conversation, "clientMessageId": original],
      ]))
    #expect(forwarded.status == 201, "\(forwarded.text)")
    let carol = try await server.login("carol")
    let download = await server.request("GET", "/v1/media/\(key)", token: carol.accessToken)
    #expect(download.status == 410)
  }

  /// Issue 33: a deleted document leaves nothing of itself on the server: its bytes go at
  /// once, its upload keeps no name, hash, size or type (only what the sweep needs: key, owner,
  /// dates), no message names its key, and the next sweep after the day's grace removes the
  /// upload whole.
  @Test func aDeletedDocumentLeavesNoNameHashOrSizeBehind() async throws {
    let storage = MemoryMediaStorage()
    let server = try TestServer(media: storage)
    let alice = try await server.login("alice")
    let bytes: [UInt8] = Array("the tax return".utf8)
    let sha = Hex.encode(Crypto.sha256(bytes))
    let created = await server.request(
      "POST", "/v1/media/uploads", token: alice.accessToken,
      body: try TestJSON.encode([
        "kind": "file", "contentType": "application/pdf", "byteCount": bytes.count,
        "sha256": sha, "fileName": "tax-return-2026.pdf",
      ]))
    let key = try #require(created.object["mediaKey"] as? String)
    let part = try #require((created.object["parts"] as? [[String: Any]])?.first)
    storage.put(bytes, at: try #require(part["url"] as? String))
    let completed = await server.request(
      "POST", "/v1/media/uploads/\(key)/complete", token: alice.accessToken,
      body: #"{"parts":[]}"#)
    #expect(completed.status == 200)
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let id = UUID().uuidString
    let posted = await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: alice.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": id, "text": "",
        "media": [
          "key": key, "kind": "file", "contentType": "application/pdf",
          "byteCount": bytes.count, "sha256": sha, "fileName": "tax-return-2026.pdf",
        ],
      ]))
    #expect(posted.status == 201, "\(posted.text)")
    let upload = "SELECT content_type, byte_count, sha256, file_name FROM media_uploads"
    #expect(
      try await server.rows(upload).first
        == [.text("application/pdf"), .integer(14), .text(sha), .text("tax-return-2026.pdf")])

    let deleted = await server.request(
      "POST", "/v1/conversations/\(conversation)/messages", token: alice.accessToken,
      body: try TestJSON.encode([
        "clientMessageId": UUID().uuidString, "kind": "delete", "target": id,
      ]))
    #expect(deleted.status == 201)
    #expect(!storage.holds(key))
    #expect(try await server.rows(upload).first == [.text(""), .integer(0), .text(""), .null])
    let named = try await server.rows("SELECT count(*) FROM messages WHERE media_key IS NOT NULL")
    #expect(named.first == [.integer(0)])
    server.clock.shiftWallClock(by: .seconds(86_400 + 1))
    #expect(await server.service.sweepMedia(at: server.clock.now()) == 1)
    #expect(try await server.rows("SELECT count(*) FROM media_uploads").first == [.integer(0)])
  }

  /// A device killed while the server put its parts together: the next process asks which
  /// parts the store holds while that completion is still under way (the store has merged the
  /// parts, the upload is not marked complete yet). It is told every part is there, not 422,
  /// and its own completion goes on from where the first one is. (Found by the e2e test that
  /// kills 40 MB sends, under load: the photo turned failed, "the store has no such upload".)
  @Test func askingForThePartsWhileACompletionIsUnderWayFindsThemAll() async throws {
    let storage = MemoryMediaStorage()
    let server = try TestServer(media: storage)
    let alice = try await server.login("alice")
    let part = APILimits.mediaPartBytes
    let bytes = (0..<(part + 3)).map { UInt8(truncatingIfNeeded: $0) }
    let created = await server.request(
      "POST", "/v1/media/uploads", token: alice.accessToken,
      body: try TestJSON.encode([
        "kind": "file", "contentType": "application/pdf", "byteCount": bytes.count,
        "sha256": Hex.encode(Crypto.sha256(bytes)), "fileName": "big.pdf",
      ]))
    let key = try #require(created.object["mediaKey"] as? String)
    let parts = try #require(created.object["parts"] as? [[String: Any]])
    #expect(parts.count == 2)
    for entry in parts {
      let offset = try #require(entry["offset"] as? Int)
      let count = try #require(entry["byteCount"] as? Int)
      storage.put(Array(bytes[offset..<offset + count]), at: try #require(entry["url"] as? String))
    }
    // The first completion has merged the parts in the store, and no more.
    try await storage.completeMultipart(
      key: "incoming/\(key)", uploadId: "upload-incoming/\(key)", parts: [])

    let status = await server.request("GET", "/v1/media/uploads/\(key)", token: alice.accessToken)
    #expect(status.status == 200, "\(status.text)")
    let received = (status.object["received"] as? [[String: Any]])?.compactMap {
      $0["number"] as? Int
    }
    #expect(received == [1, 2])
    let completed = await server.request(
      "POST", "/v1/media/uploads/\(key)/complete", token: alice.accessToken,
      body: #"{"parts":[{"number":1,"etag":""},{"number":2,"etag":""}]}"#)
    #expect(completed.status == 200, "\(completed.text)")
    #expect(storage.holds(key))
  }

  @Test func aStoreThatCannotBeReachedIsA503ToTryAgain() async throws {
    let storage = MemoryMediaStorage()
    let server = try TestServer(media: storage)
    let alice = try await server.login("alice")
    let created = await server.request(
      "POST", "/v1/media/uploads", token: alice.accessToken,
      body: try TestJSON.encode([
        "kind": "file", "contentType": "text/plain", "byteCount": 3,
        "sha256": String(repeating: "a", count: 64),
      ]))
    let key = try #require(created.object["mediaKey"] as? String)
    storage.failing.store(true, ordering: .relaxed)
    let status = await server.request("GET", "/v1/media/uploads/\(key)", token: alice.accessToken)
    #expect(status.status == 503)
    #expect(status.header("Retry-After") == "1")
    #expect(!server.log.lines.joined().contains("memory://"))
  }

  @Test func eightMebibytesIsOnePartAndOneByteMoreIsTwo() async throws {
    let server = try TestServer(media: FixedPartsStorage())
    let alice = try await server.login("alice")
    func parts(_ byteCount: Int) async throws -> [[Int]] {
      let created = await server.request(
        "POST", "/v1/media/uploads", token: alice.accessToken,
        body: try TestJSON.encode([
          "kind": "file", "contentType": "application/pdf", "byteCount": byteCount,
          "sha256": String(repeating: "b", count: 64),
        ]))
      return (created.object["parts"] as? [[String: Any]] ?? []).map {
        [$0["number"] as? Int ?? 0, $0["offset"] as? Int ?? 0, $0["byteCount"] as? Int ?? 0]
      }
    }
    let part = APILimits.mediaPartBytes
    #expect(try await parts(part) == [[1, 0, part]])
    #expect(try await parts(part + 1) == [[1, 0, part], [2, part, 1]])
    #expect(try await parts(3 * part) == [[1, 0, part], [2, part, part], [3, 2 * part, part]])
  }
}

/// A store that starts every multipart upload (for the parts' arithmetic).
struct FixedPartsStorage: MediaStorage {
  func putURL(key: String, expires: Int, now: Timestamp) -> String { "put" }
  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String {
    "upload-1"
  }
  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  { "part-\(number)" }
  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  {
    []
  }
  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  {}
  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)? {
    nil
  }
  func delete(key: String, uploadId: String?) async throws(MediaStorageError) {}
  func move(from: String, to: String) async throws(MediaStorageError) -> Bool { true }
  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String { "get" }
}
