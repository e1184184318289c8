import ChatServer
import Foundation
import Testing

@Suite struct ConversationTests {
  let server: TestServer
  let alice: Session
  let bob: Session

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
  }

  @Test func creatingAnswersTheConversationWithTheCallerAmongSortedDeduplicatedMembers()
    async throws
  {
    let response = await server.request(
      "POST", "/v1/conversations", token: bob.accessToken,
      body: #"{"title":"Hiking","memberIds":["carol","alice","carol","bob"]}"#)
    #expect(response.status == 201)
    let object = response.object
    #expect(
      Set(object.keys) == [
        "id", "title", "memberIds", "lastSequence", "readUpTo", "createdAt", "visible",
        "membership", "createdBy", "unreadMentions", "mutedMentions", "pinned", "draft",
      ])
    #expect(object["membership"] as? String == "member")
    #expect(object["createdBy"] as? String == "bob")
    #expect((object["visible"] as? [[Any]])?.first?.first as? Int == 1)
    #expect(object["title"] as? String == "Hiking")
    #expect(object["memberIds"] as? [String] == ["alice", "bob", "carol"])
    #expect(object["lastSequence"] as? Int == 0)
    #expect(object["readUpTo"] as? Int == 0)
    #expect(object["createdAt"] as? String == server.clock.now().rfc3339)
    let id = try #require(object["id"] as? String)
    #expect(id.count == 36)
  }

  @Test func aTitleIsOptional() async throws {
    let response = await server.request(
      "POST", "/v1/conversations", token: alice.accessToken, body: #"{"memberIds":["bob"]}"#)
    #expect(response.status == 201)
    #expect(response.object["title"] as? String == "")
  }

  @Test func groupsHoldUpTo256MembersTheCreatorIncluded() async throws {
    let others = (1...255).map { "user\($0)" }
    let full = try TestJSON.encode(["memberIds": others + ["alice", "user1"]])
    let accepted = await server.request(
      "POST", "/v1/conversations", token: alice.accessToken, body: full)
    #expect(accepted.status == 201)
    #expect((accepted.object["memberIds"] as? [String])?.count == 256)
    let tooMany = try TestJSON.encode(["memberIds": others + ["user256"]])
    let refused = await server.request(
      "POST", "/v1/conversations", token: alice.accessToken, body: tooMany)
    #expect(refused.status == 422)
    #expect(refused.errorCode == "invalid")
  }

  @Test func theListIsTheCallersNewestActivityFirstWithTheLastMessage() async throws {
    let first = try await server.createConversation(by: alice, with: ["bob"], title: "first")
    server.clock.advance(by: .seconds(1))
    let second = try await server.createConversation(by: alice, with: ["carol"], title: "second")
    server.clock.advance(by: .seconds(1))
    let third = try await server.createConversation(by: bob, with: ["carol"], title: "not alice's")
    server.clock.advance(by: .seconds(1))
    _ = try await server.send("latest", to: first, as: bob)

    let list = await server.request("GET", "/v1/conversations", token: alice.accessToken)
    #expect(list.status == 200)
    #expect(list.items.compactMap { $0["id"] as? String } == [first, second])
    let item = list.items[0]
    #expect(
      Set(item.keys) == [
        "id", "title", "memberIds", "lastSequence", "readUpTo", "lastMessage", "createdAt",
        "visible", "membership", "createdBy", "unreadMentions", "mutedMentions", "pinned", "draft",
      ])
    #expect(item["lastSequence"] as? Int == 1)
    #expect(item["readUpTo"] as? Int == 0)
    let last = item["lastMessage"] as? [String: Any]
    #expect(last?["text"] as? String == "latest")
    #expect(last?["senderId"] as? String == "bob")
    #expect(list.items[1]["lastMessage"] is NSNull)
    let forBob = await server.request("GET", "/v1/conversations", token: bob.accessToken)
    #expect(forBob.items.compactMap { $0["id"] as? String } == [first, third])
  }

  @Test func syncReturnsWhatChangedSinceTheCursor() async throws {
    let carol = try await server.login("carol")
    let withBob = try await server.createConversation(by: alice, with: ["bob"])
    let withCarol = try await server.createConversation(by: alice, with: ["carol"])
    func sync(_ session: Session, _ cursor: String?) async -> (ids: Set<String>, cursor: String) {
      let response = await server.request(
        "GET", "/v1/sync", query: cursor.map { ["cursor": $0] } ?? [:], token: session.accessToken)
      #expect(response.status == 200)
      let conversations = response.object["conversations"] as? [[String: Any]] ?? []
      return (
        Set(conversations.compactMap { $0["id"] as? String }),
        response.object["cursor"] as? String ?? ""
      )
    }
    let everything = await sync(alice, nil)
    #expect(everything.ids == [withBob, withCarol])
    let quiet = await sync(alice, everything.cursor)
    #expect(quiet.ids.isEmpty)
    #expect(quiet.cursor == everything.cursor)

    _ = try await server.send("hi", to: withBob, as: bob)
    let afterMessage = await sync(alice, everything.cursor)
    #expect(afterMessage.ids == [withBob])

    let receipt = await server.request(
      "POST", "/v1/conversations/\(withCarol)/delivered", token: carol.accessToken,
      body: #"{"upToSequence":0}"#)
    #expect(receipt.status == 204)
    #expect(await sync(alice, afterMessage.cursor).ids.isEmpty, "0 raises nothing")

    _ = try await server.send("yo", to: withCarol, as: alice)
    let afterOwn = await sync(alice, afterMessage.cursor)
    #expect(afterOwn.ids == [withCarol])
    let read = await server.request(
      "POST", "/v1/conversations/\(withCarol)/read", token: carol.accessToken,
      body: #"{"upToSequence":1}"#)
    #expect(read.status == 204)
    #expect(await sync(alice, afterOwn.cursor).ids == [withCarol], "a raised receipt is a change")

    let latest = await sync(alice, nil).cursor
    let created = try await server.createConversation(by: bob, with: ["alice"])
    #expect(await sync(alice, latest).ids == [created])
  }

  @Test func aCursorThisServerDidNotIssueIsABadRequest() async throws {
    for cursor in ["abc", "-1", "", "01", "1.5"] {
      let response = await server.request(
        "GET", "/v1/sync", query: ["cursor": cursor], token: alice.accessToken)
      #expect(response.status == 400, "\(cursor)")
    }
  }
}
