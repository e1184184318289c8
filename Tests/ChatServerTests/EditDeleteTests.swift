import ChatAPI
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatServer

/// API.md Part 2, "Edits and deletes": an edit or delete is an item of its own in the log, by
/// the target's sender only, and a delete erases the text of the message and of its edits.
@Suite struct EditDeleteTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String
  static let original = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a01"

  init() async throws {
    try await self.init(server: TestServer())
  }

  init(server: TestServer) async throws {
    self.server = server
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
    let sent = try await server.send(
      "See you at nine", to: conversation, as: alice, clientMessageId: Self.original)
    #expect(sent.status == 201)
  }

  private func edit(
    _ text: String, target: String = original, as session: Session? = nil,
    key: String = UUID().uuidString
  ) async throws -> TestResponse {
    try await server.post(
      ["clientMessageId": key, "kind": "edit", "target": target, "text": text], to: conversation,
      as: session ?? alice)
  }

  private func delete(
    target: String = original, as session: Session? = nil, key: String = UUID().uuidString
  ) async throws -> TestResponse {
    try await server.post(
      ["clientMessageId": key, "kind": "delete", "target": target], to: conversation,
      as: session ?? alice)
  }

  @Test func anEditIsAnItemOfItsOwnAndTheMessageIsServedInItsCurrentState() async throws {
    let edit = try await edit("See you at ten")
    #expect(edit.status == 201)
    #expect(edit.object["kind"] as? String == "edit")
    #expect(edit.object["target"] as? String == Self.original)
    #expect(edit.object["text"] as? String == "See you at ten")
    #expect(edit.object["sequence"] as? Int == 2)
    let page = await server.messages(in: conversation, as: bob)
    #expect(page.sequences == [1, 2])
    let message = try #require(page.items.first)
    #expect(message["text"] as? String == "See you at ten")
    #expect(message["editedAt"] as? String == edit.object["sentAt"] as? String)
    #expect(message["deleted"] as? Bool == false)
    let list = await server.request("GET", "/v1/conversations", token: bob.accessToken)
    let item = try #require((list.object["items"] as? [[String: Any]])?.first)
    let last = try #require(item["lastMessage"] as? [String: Any])
    #expect(last["sequence"] as? Int == 1, "lastMessage is the newest item of kind message")
    #expect(last["text"] as? String == "See you at ten")
    #expect(item["lastSequence"] as? Int == 2)
  }

  @Test func onlyTheSenderMayEditOrDelete() async throws {
    #expect(try await edit("hijacked", as: bob).status == 403)
    #expect(try await delete(as: bob).status == 403)
    #expect(await server.messages(in: conversation, as: bob).sequences == [1])
  }

  @Test func theTargetMustBeALiveMessageOfTheCallerInThisConversation() async throws {
    let unknown = try await edit("x", target: UUID().uuidString)
    #expect(unknown.status == 422)
    let editKey = UUID().uuidString
    #expect(try await edit("See you at ten", key: editKey).status == 201)
    #expect(try await edit("x", target: editKey).status == 422, "an edit is not a message")
    #expect(try await edit("").status == 422, "an edit needs text")
    #expect(try await delete().status == 201)
    #expect(try await edit("too late").status == 422, "deleted")
    #expect(try await delete().status == 422, "already deleted")
    #expect(try await edit("x", target: "not-a-uuid").status == 400)
    let elsewhere = try await server.createConversation(by: alice, with: ["bob"])
    let other = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "edit", "target": Self.original,
        "text": "x",
      ], to: elsewhere, as: alice)
    #expect(other.status == 422, "the target is in another conversation")
  }

  @Test func retriesAreIdempotentAndAnotherBodyIsAConflict() async throws {
    let key = UUID().uuidString
    let first = try await edit("See you at ten", key: key)
    let again = try await edit("See you at ten", key: key)
    #expect(first.status == 201 && again.status == 200)
    #expect(again.object["sequence"] as? Int == first.object["sequence"] as? Int)
    #expect(try await edit("See you at eleven", key: key).status == 409)
    // The original message was edited: its retry is answered with what it is now.
    let retry = try await server.send(
      "See you at nine", to: conversation, as: alice, clientMessageId: Self.original)
    #expect(retry.status == 200)
    #expect(retry.object["text"] as? String == "See you at ten")
    let deleteKey = UUID().uuidString
    #expect(try await delete(key: deleteKey).status == 201)
    #expect(try await delete(key: deleteKey).status == 200)
    let sameKeyAsMessage = try await server.send(
      "x", to: conversation, as: alice, clientMessageId: deleteKey)
    #expect(sameKeyAsMessage.status == 409, "same key, another kind")
    #expect(
      try await edit("x", key: deleteKey).status == 422,
      "the deleted target's 422 comes before the key's 409")
    #expect(await server.messages(in: conversation, as: bob).sequences == [1, 2, 3])
  }

  @Test func aDeleteErasesTheTextOfTheMessageAndOfItsEdits() async throws {
    #expect(try await edit("See you at ten").status == 201)
    let delete = try await delete()
    #expect(delete.status == 201)
    #expect(delete.object["kind"] as? String == "delete")
    #expect(delete.object["text"] as? String == "")
    let page = await server.messages(in: conversation, as: bob)
    #expect(page.items.map { $0["text"] as? String } == ["", "", ""])
    #expect(page.items.first?["deleted"] as? Bool == true)
    let rows = try await server.rows("SELECT count(*) FROM messages WHERE text != ''")
    #expect(rows.first?.first == .integer(0))
  }

  /// Issue 33: every byte of a deleted or replaced text leaves the files, in every script the
  /// two search indexes hold (Latin words; CJK, Thai and emoji by trigram), the segments FTS5
  /// keeps until a merge and the write-ahead log included.
  @Test func aDeletedOrEditedTextIsInNoFileOfTheDatabase() async throws {
    let folder = try TemporaryFolder()
    let server = try TestServer(location: .dataFolder(folder.path))
    let tests = try await EditDeleteTests(server: server)
    let markers = ["zqxvelmarker", "䨻䲜䶑", "ฃฅฆฌ", "🦩🪼"]
    let path = folder.path + "/chat.sqlite"
    func found(_ texts: [String]) -> [String] {
      texts.filter { Database.occurrences(of: Array($0.utf8), inFilesAt: path) > 0 }
    }
    let secret = UUID().uuidString
    let sent = try await server.send(
      "secret " + markers.joined(separator: " "), to: tests.conversation, as: tests.alice,
      clientMessageId: secret)
    #expect(sent.status == 201)
    for n in 0..<40 {
      let sent = try await server.send("東京で \(n) 🚲", to: tests.conversation, as: tests.bob)
      #expect(sent.status == 201)
    }
    await server.store.finishErasure()
    #expect(found(markers) == markers, "the test can see text in the files")
    #expect(try await tests.edit("䴔䴕䵷 then", target: secret).status == 201)
    await server.store.finishErasure()
    #expect(found(markers).isEmpty, "an edit erases the text it replaces")
    #expect(try await tests.delete(target: secret).status == 201)
    await server.store.finishErasure()
    #expect(found(["䴔䴕䵷"]).isEmpty, "a delete erases its edits' texts too")
    let search = await server.request(
      "GET", "/v1/search", query: ["q": "東京"], token: tests.bob.accessToken)
    #expect((search.object["items"] as? [Any])?.count == 20, "the others are still found")
  }

  @Test func editsAndDeletesGoLiveToEveryMember() async throws {
    let live = try await server.openLive(bob)
    let edit = try await edit("See you at ten")
    let delete = try await delete()
    let events = await server.drain(live)
    let items = events.filter { $0["type"] as? String == "message" }.compactMap {
      $0["message"] as? [String: Any]
    }
    #expect(items.map { $0["kind"] as? String } == ["edit", "delete"])
    #expect(items.map { $0["sequence"] as? Int } == [2, 3])
    #expect(edit.status == 201 && delete.status == 201)
  }

  @Test func aPostOfAnotherKindIsRefused() async throws {
    let members = try await server.post(
      ["clientMessageId": UUID().uuidString, "kind": "members", "text": ""], to: conversation,
      as: alice)
    #expect(members.status == 400)
    let withTarget = try await server.post(
      ["clientMessageId": UUID().uuidString, "text": "hi", "target": Self.original],
      to: conversation, as: alice)
    #expect(withTarget.status == 400, "a message has no target")
    let deleteWithText = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "delete", "target": Self.original,
        "text": "why",
      ], to: conversation, as: alice)
    #expect(deleteWithText.status == 400)
  }
}
