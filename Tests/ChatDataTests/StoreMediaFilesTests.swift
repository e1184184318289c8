import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import Testing

@testable import ChatData

/// The media folder's sweep: after a write that deleted a message, the files no row names go,
/// except one being written for a message not saved yet.
@Suite struct StoreMediaFilesTests {
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

  /// Retention's media window (`Retention.mediaDays`): downloaded bytes of messages sent before
  /// the cutoff go, file and all; the message and its thumbnail stay (opening it downloads
  /// again); newer media stays, and so does my unsent message's file, its only copy.
  @Test func mediaPastTheWindowLosesItsBytesButKeepsItsMessageAndThumbnail() async throws {
    let file = try StoreFixtureFile()
    let store = try await MessageStore.open(.file(file.path), executor: file.executor)
    let folder = MediaFolder(databasePath: file.path)
    let (me, bob, chat) = (UserID("alice"), UserID("bob"), ConversationID("c1"))
    try await store.saveConversations(
      [
        ServerConversation(
          id: chat, title: "Photos", memberIDs: [me, bob],
          createdAt: Date(timeIntervalSince1970: 1_000), lastSequence: 0, readUpTo: 0)
      ], me: me)
    func photo(_ n: Int) -> Media {
      Media(
        key: "k\(n)", kind: .image, contentType: "image/jpeg", byteCount: 3,
        sha256: String(repeating: "a", count: 64), width: 1, height: 1, thumbnail: "/9j/\(n)")
    }
    let old = Date(timeIntervalSince1970: 10_000)
    let recent = Date(timeIntervalSince1970: 900_000)
    let messages = [(1, old), (2, recent)].map { n, sentAt in
      MessageRecord(
        conversationID: chat, clientID: StoreFixture.id(n), senderID: bob, serverID: "s\(n)",
        text: "photo \(n)", sequence: n, sentAt: sentAt, state: .sent, failure: nil,
        media: photo(n))
    }
    try await store.saveServerMessages(messages, in: chat, me: me)
    for n in 1...2 {
      try folder.write([1, 2, 3], as: "bob-\(n).jpg")
      try await store.saveMediaFile(
        StoreFixture.id(n), in: chat, sender: bob, file: "bob-\(n).jpg", at: recent)
    }
    try folder.write([4, 5, 6], as: "mine.jpg")
    try await store.insertPending(
      MessageRecord(
        conversationID: chat, clientID: StoreFixture.id(9), senderID: me, serverID: nil,
        text: "my old photo", sequence: nil, sentAt: old, state: .sending, failure: nil,
        media: photo(9), mediaFile: "mine.jpg"), queuedAt: 0)

    let expired = try await store.expireMedia(sentBefore: Date(timeIntervalSince1970: 500_000))

    #expect(expired == 1)
    #expect(Set(folder.names()) == ["bob-2.jpg", "mine.jpg"])
    let rows = try await store.snapshot(chat, limit: 50).messages
    #expect(rows.map(\.text) == ["photo 1", "photo 2", "my old photo"])
    #expect(rows.map(\.mediaFile) == [nil, "bob-2.jpg", "mine.jpg"])
    #expect(rows.first?.media?.thumbnail == "/9j/1", "the thumbnail stays")
    #expect(try await store.expireMedia(sentBefore: Date(timeIntervalSince1970: 500_000)) == 0)
    await store.close()
  }
}
