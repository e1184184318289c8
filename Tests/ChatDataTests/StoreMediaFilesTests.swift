import ChatDomain
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
}
