import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// Media in the store (`MediaFiles`): my upload's steps kept as they happen, others' downloads
/// a cache bounded in bytes, and the media folder's sweep: after a write that deleted a message,
/// the files no row names go, except one being written for a message not saved yet.
@Suite struct MediaFilesTests {
  private func photo(_ n: Int, bytes: Int = 3) -> Media {
    Media(
      key: n == 0 ? "" : "k\(n)", kind: .image, contentType: "image/jpeg", byteCount: bytes,
      sha256: String(repeating: "a", count: 64), width: 1, height: 1, thumbnail: "/9j/")
  }

  /// My upload's steps are written as they happen, so a killed app resumes after the last:
  /// started (the store's key), progress, completed (the message's media takes the key); a
  /// forgotten upload starts again from nothing.
  @Test func eachStepOfMyUploadIsKeptAndAForgottenOneStartsAgain() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let id = StoreFixture.id(1)
    var message = f.pending(id)
    message.media = photo(0)
    try await f.store.insertPending(message, queuedAt: 0)
    try await f.store.saveUploadStarted(id, in: f.chat, sender: f.me, key: "up-1")
    try await f.store.saveUploadProgress(id, in: f.chat, sender: f.me, sent: 2)
    var upload = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
    #expect(upload.key == "up-1" && upload.sent == 2 && !upload.done && upload.media.key == "")
    try await f.store.saveUploadCompleted(id, in: f.chat, sender: f.me, key: "media-1")
    upload = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
    #expect(upload.done && upload.sent == 3 && upload.media.key == "media-1")
    try await f.store.forgetUpload(id, in: f.chat, sender: f.me)
    upload = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
    #expect(!upload.done && upload.key == nil && upload.sent == 0 && upload.media.key == "")
  }

  /// Others' downloads are a cache bounded in bytes: the least recently viewed lose their file
  /// first; mine stay, whatever their size (until the server has them they are the only copy).
  @Test func theCacheEvictsTheLeastRecentlyViewedOfOthersAndNeverMine() async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let received = (1...3).map { n in
      var message = f.serverMessage(n)
      message.media = photo(n, bytes: 100)
      return message
    }
    try await f.store.saveServerMessages(received, in: f.chat, me: f.me)
    for (n, viewed) in [(1, 300.0), (2, 100.0), (3, 200.0)] {
      try await f.store.saveMediaFile(
        StoreFixture.id(n), in: f.chat, sender: f.bob, file: "bob-\(n)",
        at: Date(timeIntervalSince1970: viewed))
    }
    var mine = f.pending(StoreFixture.id(9))
    mine.media = photo(9, bytes: 100)
    mine.mediaFile = "mine"
    try await f.store.insertPending(mine, queuedAt: 0)
    #expect(try await f.store.trimMediaCache(to: 250, me: f.me) == ["bob-2"])
    #expect(try await f.store.trimMediaCache(to: 0, me: f.me) == ["bob-1", "bob-3"])
    let files = try await f.store.snapshot(f.chat, limit: 50).messages.map(\.mediaFile)
    #expect(files == [nil, nil, nil, "mine"])
  }

  @Test func aDeleteSweepsWhatNoRowNamesButKeepsAFileBeingWritten() async throws {
    let file = try StoreFixtureFile()
    try SchemaFixtures.copy("v1", "client-alice.sqlite", to: file.path)
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let folder = MediaFolder(databasePath: file.path)
    try folder.write([1, 2, 3], as: "orphan.bin")
    try folder.write([4, 5, 6], as: "coming.jpg")
    try folder.write([7], as: "coming.jpg.tmp")
    await store.reserveMediaFile("coming.jpg")

    // When a message is deleted (the server's delete item arrives)
    let message = try #require(try await store.search("lighthouse", limit: 10).first).message
    var delete = message
    delete.clientID = MessageID(rawValue: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a90")!
    delete.serverID = "delete-9"
    delete.sequence = try #require(try await store.newestSequence(in: message.conversationID)) + 1
    delete.kind = .delete
    delete.target = message.clientID
    delete.text = ""
    try await store.saveServerMessages([delete], in: message.conversationID, me: UserID("alice"))

    // Then the orphan goes, the file being written stays (and its temporary copy)
    #expect(Set(folder.names()) == ["coming.jpg", "coming.jpg.tmp"])
    // Once its message is saved (or given up), it is swept like any other
    await store.unreserveMediaFile("coming.jpg")
    await store.removeUnreferencedMediaFiles()
    #expect(folder.names() == [])
    await store.close()
  }

  /// A media file that finds no room is a full device (`ChatError.deviceFull`), not a storage
  /// failure: the kernel's own `ENOSPC`, from `/dev/full` behind the file the folder writes,
  /// reaches the failure through Foundation's error. Another failure is not "full".
  @Test func aMediaWriteThatFindsNoRoomSaysTheDeviceIsFull() throws {
    let root = NSTemporaryDirectory() + "media-full-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let folder = MediaFolder(databasePath: root + "/db.sqlite")
    try folder.create()
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("photo.jpg.tmp"), withDestinationPath: "/dev/full")
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("download.part"), withDestinationPath: "/dev/full")
    let photo = #expect(throws: MediaFolder.Failure.self) {
      try folder.write([1, 2, 3], as: "photo.jpg")
    }
    #expect(photo?.isFull == true, "\(String(describing: photo))")
    let download = #expect(throws: MediaFolder.Failure.self) {
      try folder.append([1, 2, 3], to: "download.part")
    }
    #expect(download?.isFull == true, "\(String(describing: download))")
    #expect(folder.size(of: "photo.jpg") == nil)
    // A folder that cannot be made (a file stands in its way) is not a full disk.
    let blocked = MediaFolder(databasePath: root + "/other.sqlite")
    FileManager.default.createFile(atPath: blocked.path, contents: Data())
    let failure = #expect(throws: MediaFolder.Failure.self) {
      try blocked.write([1], as: "photo.jpg")
    }
    #expect(failure?.isFull == false)
  }
}
