import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatTransports
import Foundation
import ImagePipeline
import Synchronization
import Testing

/// Photos and documents between real engines and the reference server with its built-in
/// object store, over loopback: the engine's upload steps, its resumes, its downloads
/// (API.md Part 2, "Media"). Uploads and downloads cross a wrapper of the object-store
/// transport that can cut a request or spoil a reply and that logs each request, so the tests
/// can say which parts were sent and which ranges asked.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MediaOverLoopbackTests {
  @Test func aPhotoAndADocumentGoFromOneEngineToAnotherAndTheBytesMatch() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let alice = try await server.engine("alice")
    let bob = try await server.engine("bob")
    let conversation = try await alice.conversationList.createConversation(
      title: "Media", memberIDs: [UserID("bob")])

    // Given a 1,700 × 1,275 PNG, saved and shown at once, compressed, before any upload
    let photo = try await alice.media.send(
      .photo(path: try files.png(width: 1_700, height: 1_275)), caption: "the view",
      in: conversation)
    let saved = try #require(try await alice.localMessages(in: conversation).first)
    #expect(saved.id == photo && saved.send == .sending && saved.text == "the view")
    let shown = try #require(saved.media)
    #expect(shown.kind == .image && shown.contentType == "image/jpeg")
    #expect(shown.width == 1_600 && shown.height == 1_200)
    #expect(shown.uploadedBytes == 0)
    let thumbnail = try #require(shown.thumbnail)
    #expect(!thumbnail.isEmpty && thumbnail.count <= APILimits.maxThumbnailBytes)
    let alicesJPEG = try Files.bytes(try #require(shown.localPath))
    #expect(alicesJPEG.count == shown.byteCount && alicesJPEG.starts(with: [0xFF, 0xD8]))
    #expect(try Files.mode(try #require(shown.localPath)) == 0o600)

    // and a 20 MB document (three parts of the store's multipart upload)
    let document = try files.random(count: 20_000_000, name: "report.pdf")
    let pdf = try await alice.media.send(
      .file(path: document.path), caption: "", in: conversation)

    // When alice's outbox runs, both go out, uploads first
    #expect(await alice.drainOutbox() == 0)
    let sent = try await alice.localMessages(in: conversation)
    #expect(sent.map(\.send) == [.sent, .sent])
    #expect(sent.map { $0.media?.uploadedBytes } == [nil, nil])
    #expect(sent[1].media?.fileName == "report.pdf")
    #expect(sent[1].media?.contentType == "application/pdf")

    // Then bob gets both with the thumbnail inline, and the bytes on demand, sha256 checked
    _ = try await bob.sync()
    let received = try await bob.localMessages(in: conversation)
    #expect(received.map(\.id) == [photo, pdf])
    #expect(received[0].media?.thumbnail == thumbnail)
    #expect(received[0].media?.localPath == nil && received[1].media?.byteCount == 20_000_000)
    let bobsPhoto = try await bob.media.download(photo, in: conversation, progress: nil)
    #expect(try Files.bytes(bobsPhoto) == alicesJPEG)
    let heard = Mutex<[Int]>([])
    let bobsDocument = try await bob.media.download(pdf, in: conversation) { held, total in
      #expect(total == 20_000_000)
      heard.withLock { $0.append(held) }
    }
    #expect(try Files.bytes(bobsDocument) == document.bytes)
    #expect(try Files.mode(bobsDocument) == 0o600)
    #expect(heard.withLock { $0 } == [0, 8_388_608, 16_777_216, 20_000_000])
    let after = try await bob.localMessages(in: conversation)
    #expect(after.map { $0.media?.localPath } == [bobsPhoto, bobsDocument])
    // Asked again, the file is already here: no request
    #expect(try await bob.media.download(pdf, in: conversation, progress: nil) == bobsDocument)

    await alice.close()
    await bob.close()
    await server.stop()
  }

  @Test func anUploadCutMidwayResumesAfterARelaunchAtThePartTheStoreDoesNotHave() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let document = try files.random(count: 20_000_000, name: "scan.pdf")
    let first = ScriptedObjects()
    var alice = try await server.engine("alice", objects: first.wrap)
    let conversation = try await alice.conversationList.createConversation(
      title: "Resume", memberIDs: [UserID("bob")])

    // Given the connection cut during the second part
    first.fail(request: 1, with: .offline("cut (test)"))
    let id = try await alice.media.send(.file(path: document.path), caption: "", in: conversation)
    #expect(await alice.drainOutbox() == 1)
    let waiting = try #require(try await alice.localMessages(in: conversation).first?.media)
    #expect(waiting.uploadedBytes == 8_388_608)
    #expect(first.puts == [1, 2])

    // When the app is killed and opened again
    await alice.close()
    let second = ScriptedObjects()
    alice = try await server.reopen("alice", objects: second.wrap)
    #expect(await alice.drainOutbox() == 0)

    // Then only the parts the store did not have were sent, and the message exists once
    #expect(second.puts == [2, 3])
    let bob = try await server.engine("bob")
    _ = try await bob.sync()
    let held = try await bob.localMessages(in: conversation)
    #expect(held.map(\.id) == [id])
    let path = try await bob.media.download(id, in: conversation, progress: nil)
    #expect(try Files.bytes(path) == document.bytes)

    await alice.close()
    await bob.close()
    await server.stop()
  }

  @Test func aCutDownloadResumesWithRangeAndSpoiledBytesAreRefused() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let document = try files.random(count: 20_000_000, name: "big.bin")
    let alice = try await server.engine("alice")
    let conversation = try await alice.conversationList.createConversation(
      title: "Download", memberIDs: [UserID("bob"), UserID("carol")])
    let id = try await alice.media.send(.file(path: document.path), caption: "", in: conversation)
    #expect(await alice.drainOutbox() == 0)

    // Given bob's second ranged GET cut
    let objects = ScriptedObjects()
    let bob = try await server.engine("bob", objects: objects.wrap)
    _ = try await bob.sync()
    objects.fail(request: 1, with: .offline("cut (test)"))
    await #expect(throws: ChatError.offline) {
      try await bob.media.download(id, in: conversation, progress: nil)
    }

    // When he asks again, it goes on from the bytes it holds
    let path = try await bob.media.download(id, in: conversation, progress: nil)
    #expect(try Files.bytes(path) == document.bytes)
    #expect(
      objects.ranges == [
        "bytes=0-8388607", "bytes=8388608-16777215", "bytes=8388608-16777215",
        "bytes=16777216-19999999",
      ])

    // And carol, whose bytes arrive spoiled, keeps nothing and is told why
    let spoiled = ScriptedObjects()
    spoiled.spoilDownloads()
    let carol = try await server.engine("carol", objects: spoiled.wrap)
    _ = try await carol.sync()
    await #expect(throws: ChatError.self) {
      try await carol.media.download(id, in: conversation, progress: nil)
    }
    #expect(try await carol.localMessages(in: conversation).first?.media?.localPath == nil)
    #expect(try Files.names(server.databasePath("carol") + ".media") == [])

    await alice.close()
    await bob.close()
    await carol.close()
    await server.stop()
  }

  @Test func deletingAMediaMessageDeletesItsFilesOnDevicesAndItsBytesOnTheServer() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let alice = try await server.engine("alice")
    let bob = try await server.engine("bob")
    let conversation = try await alice.conversationList.createConversation(
      title: "Delete", memberIDs: [UserID("bob")])
    let id = try await alice.media.send(
      .photo(path: try files.png(width: 640, height: 480)), caption: "oops", in: conversation)
    #expect(await alice.drainOutbox() == 0)
    _ = try await bob.sync()
    let bobsFile = try await bob.media.download(id, in: conversation, progress: nil)
    let alicesFile = try #require(
      try await alice.localMessages(in: conversation).first?.media?.localPath)

    // When alice deletes it
    try await alice.messages.delete(id, in: conversation)
    #expect(await alice.drainOutbox() == 0)
    _ = try await bob.sync()

    // Then no device keeps its bytes (the server dropping its copy is MediaTests' rule)
    #expect(!FileManager.default.fileExists(atPath: alicesFile))
    #expect(!FileManager.default.fileExists(atPath: bobsFile))
    let tombstone = try #require(try await bob.localMessages(in: conversation).first)
    #expect(tombstone.isDeleted && tombstone.media == nil)
    await #expect(throws: ChatError.self) {
      try await bob.media.download(id, in: conversation, progress: nil)
    }

    await alice.close()
    await bob.close()
    await server.stop()
  }

  @Test func othersMediaDownloadByThemselvesAsTheSettingSays() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let metered = Metered()
    let alice = try await server.engine("alice")
    let bob = try await server.engine("bob", network: metered)
    let conversation = try await alice.conversationList.createConversation(
      title: "Auto", memberIDs: [UserID("bob")])

    // Given bob's setting: on unmetered networks only (kept in his database), and a metered
    // network
    #expect(await bob.media.autoDownload() == .never)
    try await bob.media.setAutoDownload(.unmetered)
    metered.isOn.store(true, ordering: .relaxed)
    await bob.start()
    let first = try await alice.media.send(
      .file(path: try files.random(count: 30_000, name: "a.pdf").path), caption: "one",
      in: conversation)
    #expect(await alice.drainOutbox() == 0)
    _ = try await firstValue(of: bob.messages.messages(in: conversation), "the first") {
      $0.contains { $0.id == first }
    }
    // When the network is not metered any more and the next one arrives
    metered.isOn.store(false, ordering: .relaxed)
    let second = try await alice.media.send(
      .file(path: try files.random(count: 40_000, name: "b.pdf").path), caption: "two",
      in: conversation)
    #expect(await alice.drainOutbox() == 0)

    // Then both are fetched by themselves, the first one too (held, not yet fetched)
    let held = try await firstValue(
      of: bob.messages.messages(in: conversation), "both downloaded"
    ) { messages in
      [first, second].allSatisfy { id in
        messages.first { $0.id == id }?.media?.localPath != nil
      }
    }
    #expect(held.count == 2)
    await bob.close()
    let reopened = try await server.reopen("bob")
    #expect(await reopened.media.autoDownload() == .unmetered)
    await reopened.close()
    await alice.close()
    await server.stop()
  }

  /// A client message ID is not unique across senders: another sender may reuse the ID of a
  /// message it saw. Each message's bytes stay its own on a device that holds both.
  @Test func anotherSendersMessageUnderTheSameIDKeepsItsOwnBytes() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let alice = try await server.engine("alice")
    let bob = try await server.engine("bob")
    let group = try await alice.conversationList.createConversation(
      title: "Group", memberIDs: [UserID("bob"), UserID("mallory")])
    let aliceFile = try files.random(count: 20_000, name: "alice.pdf")
    let id = try await alice.media.send(.file(path: aliceFile.path), caption: "", in: group)
    #expect(await alice.drainOutbox() == 0)
    _ = try await bob.sync()
    let bobsCopy = try await bob.media.download(id, in: group, progress: nil)

    // When mallory, who saw the ID, posts other bytes under it to bob
    let mallory = try await server.engine("mallory", ids: Reusing(id))
    let direct = try await mallory.conversationList.createConversation(
      title: "Direct", memberIDs: [UserID("bob")])
    var malloryBytes = aliceFile.bytes
    malloryBytes[0] ^= 0xFF
    let malloryFile = try files.write(malloryBytes, name: "mallory.pdf")
    #expect(try await mallory.media.send(.file(path: malloryFile), caption: "", in: direct) == id)
    #expect(await mallory.drainOutbox() == 0)
    _ = try await bob.sync()
    let bobsOther = try await bob.media.download(id, in: direct, progress: nil)

    // Then each message on bob's device keeps the bytes its own sender picked
    #expect(bobsOther != bobsCopy)
    #expect(try Files.bytes(bobsCopy) == aliceFile.bytes)
    #expect(try Files.bytes(bobsOther) == malloryBytes)
    await alice.close()
    await bob.close()
    await mallory.close()
    await server.stop()
  }

  @Test func whatCannotBeSentIsRefusedBeforeAnythingIsSaved() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let alice = try await server.engine("alice")
    let conversation = try await alice.conversationList.createConversation(
      title: "Refused", memberIDs: [UserID("bob")])
    let notAnImage = try files.random(count: 5_000, name: "photo.jpg")
    var truncated = try Files.bytes(try files.png(width: 300, height: 200))
    truncated.removeLast(truncated.count / 2)
    let cut = try files.write(truncated, name: "cut.png")
    let attempts: [ChatDomain.Attachment] = [
      .photo(path: notAnImage.path), .photo(path: cut), .photo(path: files.path + "/missing.png"),
      .file(path: files.path), .file(path: try files.write([], name: "empty.txt")),
    ]
    for attachment in attempts {
      await #expect(throws: ChatError.self) {
        try await alice.media.send(attachment, caption: "", in: conversation)
      }
    }
    await #expect(throws: ChatError.self) {
      try await alice.media.send(
        .file(path: notAnImage.path), caption: String(repeating: "x", count: 4_097),
        in: conversation)
    }
    #expect(try await alice.localMessages(in: conversation).isEmpty)
    #expect(try Files.names(server.databasePath("alice") + ".media") == [])
    await alice.close()
    await server.stop()
  }

  @Test func signingOutDeletesTheMediaFolder() async throws {
    let server = try LoopbackServer(media: true)
    let files = try Files()
    let alice = try await server.engine("alice")
    let conversation = try await alice.conversationList.createConversation(
      title: "Out", memberIDs: [UserID("bob")])
    _ = try await alice.media.send(
      .photo(path: try files.png(width: 320, height: 240)), caption: "", in: conversation)
    let folder = server.databasePath("alice") + ".media"
    #expect(try Files.names(folder).count == 1)
    #expect(try Files.mode(folder) == 0o700)
    try await alice.signOut()
    #expect(!FileManager.default.fileExists(atPath: folder))
    await server.stop()
  }
}

/// The object-store transport with a script: requests cut by their number, downloads
/// spoiled; and a log of the part numbers `PUT` and the ranges asked.
final class ScriptedObjects: Sendable {
  private struct State {
    var count = 0
    var failures: [Int: TransportError] = [:]
    var spoil = false
    var puts: [Int] = []
    var ranges: [String] = []
  }
  private let state = Mutex(State())

  /// Request number `index` (from 0) fails with `error` instead of being sent.
  func fail(request index: Int, with error: TransportError) {
    state.withLock { $0.failures[index] = error }
  }

  /// Every download's first byte comes back changed.
  func spoilDownloads() {
    state.withLock { $0.spoil = true }
  }

  /// The part numbers of the `PUT`s, in order (1 for a single-part upload).
  var puts: [Int] { state.withLock { $0.puts } }
  /// The `Range` of each `GET`, in order.
  var ranges: [String] { state.withLock { $0.ranges } }

  func wrap(_ base: any ObjectTransfer) -> any ObjectTransfer {
    Scripted(base: base, script: self)
  }

  fileprivate func record(_ request: ObjectRequest) -> (TransportError?, spoil: Bool) {
    state.withLock { state in
      let index = state.count
      state.count += 1
      if request.method == "PUT" {
        let number = request.url.split(separator: "&").first { $0.contains("partNumber=") }
          .flatMap { Int($0.split(separator: "=").last ?? "") }
        state.puts.append(number ?? 1)
      } else {
        state.ranges.append(request.headers["Range"] ?? "")
      }
      return (state.failures.removeValue(forKey: index), state.spoil)
    }
  }

  private struct Scripted: ObjectTransfer {
    let base: any ObjectTransfer
    let script: ScriptedObjects

    func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse {
      let (failure, spoil) = script.record(request)
      if let failure { throw failure }
      var response = try await base.send(request)
      if spoil, request.method == "GET", !response.body.isEmpty { response.body[0] ^= 0xFF }
      return response
    }
  }
}

/// An ID generator that hands out one given ID (a sender reusing an ID it saw).
final class Reusing: MessageIDGenerator {
  let id: MessageID

  init(_ id: MessageID) {
    self.id = id
  }

  func next() -> MessageID { id }
  func observe(_ id: MessageID) {}
}

/// A network the test says is metered or not (the seam an app fills with `NWPathMonitor`).
final class Metered: NetworkMonitor {
  let isOn = Atomic<Bool>(false)

  func reachability() -> AsyncStream<Bool> { AsyncStream { _ in } }
  func isMetered() -> Bool { isOn.load(ordering: .relaxed) }
}

/// Files made at test time in a temporary folder.
struct Files {
  let path: String
  private let folder: TemporaryFolder

  init() throws {
    folder = try TemporaryFolder()
    path = folder.path
  }

  /// A PNG of a colour gradient.
  func png(width: Int, height: Int) throws -> String {
    var rgba = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let at = (y * width + x) * 4
        rgba[at] = UInt8(x * 255 / width)
        rgba[at + 1] = UInt8(y * 255 / height)
        rgba[at + 2] = UInt8((x + y) % 256)
      }
    }
    return try write(
      ImagePipeline.encodePNG(rgba: rgba, width: width, height: height),
      name: "p\(width)x\(height).png")
  }

  /// `count` bytes no two parts of which are alike: a block of 64 KiB from a generator with
  /// a fixed seed, repeated with each copy's first bytes numbered (cheap on a loaded machine).
  func random(count: Int, name: String) throws -> (path: String, bytes: [UInt8]) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var block = [UInt8](repeating: 0, count: 65_536)
    for index in block.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      block[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    var copy: UInt32 = 0
    while bytes.count < count {
      var numbered = block
      withUnsafeBytes(of: copy.bigEndian) { numbered.replaceSubrange(0..<4, with: $0) }
      bytes += numbered.prefix(count - bytes.count)
      copy += 1
    }
    return (try write(bytes, name: name), bytes)
  }

  func write(_ bytes: [UInt8], name: String) throws -> String {
    let file = path + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    return file
  }

  static func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  static func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? 0) & 0o777
  }

  /// The files in a folder (none when it does not exist).
  static func names(_ folder: String) throws -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  }
}
