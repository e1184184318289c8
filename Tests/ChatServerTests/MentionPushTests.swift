import ChatAPI
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// API.md Part 3, "Mentions": a muted conversation still pushes a message that mentions the
/// user, unless the mute says `silent`; the body says who mentioned them.
@Suite struct MentionPushTests {
  let gateway = RecordingPushGateway()
  let server: TestServer
  let alice: Session
  let bob: Session
  let group: String

  init() async throws {
    server = try TestServer(pushGateway: gateway)
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    group = try await server.createConversation(by: alice, with: ["bob", "carol"], title: "Hiking")
    #expect(await server.registerPush(bob, token: "bob-phone") == 204)
  }

  private func mute(_ body: String) async -> TestResponse {
    await server.request(
      "PUT", "/v1/conversations/\(group)/mute", token: bob.accessToken, body: body)
  }

  private func listed() async throws -> [String: Any] {
    let list = await server.request("GET", "/v1/conversations", token: bob.accessToken)
    return try #require(list.items.first { $0["id"] as? String == group })
  }

  @Test func aMutedConversationStillPushesAMentionSayingSo() async throws {
    #expect(await mute(#"{"until":"forever"}"#).status == 204)
    #expect(try await listed()["mutedMentions"] as? String == "push")
    _ = try await server.send("no one in particular", to: group, as: alice)
    _ = try await server.send("@bob bring the map", to: group, as: alice)
    await server.settlePushes()
    let pushes = await gateway.deliveries
    #expect(pushes.count == 1)
    #expect(pushes.first?.payload.aps.alert.body == "alice mentioned you: @bob bring the map")
    #expect(pushes.first?.payload.sequence == 2)
  }

  @Test func aSilentMuteKeepsMentionsQuietToo() async throws {
    #expect(await mute(#"{"until":"forever","mentions":"silent"}"#).status == 204)
    #expect(try await listed()["mutedMentions"] as? String == "silent")
    _ = try await server.send("@bob bring the map", to: group, as: alice)
    await server.settlePushes()
    #expect(await gateway.deliveries.isEmpty)
  }

  @Test func anUnmutedMentionSaysSoToo() async throws {
    _ = try await server.send("@bob hi", to: group, as: alice)
    await server.settlePushes()
    #expect(
      await gateway.deliveries.first?.payload.aps.alert.body == "alice mentioned you: @bob hi")
  }

  @Test func aMentionAddedByAnEditDoesNotPushThroughTheMute() async throws {
    #expect(await mute(#"{"until":"forever"}"#).status == 204)
    let key = UUID().uuidString
    _ = try await server.send("map, anyone?", to: group, as: alice, clientMessageId: key)
    let edited = try await server.post(
      [
        "clientMessageId": UUID().uuidString, "kind": "edit", "target": key,
        "text": "map, @bob?",
      ], to: group, as: alice)
    #expect(edited.status == 201)
    await server.settlePushes()
    #expect(await gateway.deliveries.isEmpty)
  }

  @Test func aMentionsOptionThatIsNeitherIs400() async throws {
    #expect(await mute(#"{"until":"forever","mentions":"loud"}"#).status == 400)
    #expect(await mute(#"{"until":"forever","mentions":1}"#).status == 400)
  }
}
