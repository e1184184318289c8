import ChatAPI
import Testing

@testable import ChatServer

/// `GET /v1/sync?cursor=&wait=` (API.md Part 2): the long poll for networks that block
/// WebSockets.
@Suite struct LongPollTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  func sync(_ session: Session, cursor: String?, wait: String?) async -> TestResponse {
    var query: QueryItems = [:]
    if let cursor { query.append("cursor", cursor) }
    if let wait { query.append("wait", wait) }
    return await server.request("GET", "/v1/sync", query: query, token: session.accessToken)
  }

  /// Bob's cursor after everything so far.
  func currentCursor() async throws -> String {
    try #require(await sync(bob, cursor: nil, wait: nil).object["cursor"] as? String)
  }

  /// Starts a poll of bob's and returns once the service holds it.
  func holdPoll(_ session: Session? = nil, cursor: String, wait: Int) async
    -> Task<TestResponse, Never>
  {
    let before = await server.service.fanOut.longPolls.heldCount
    let session = session ?? bob
    let poll = Task { await sync(session, cursor: cursor, wait: String(wait)) }
    while await server.service.fanOut.longPolls.heldCount == before { await Task.yield() }
    return poll
  }

  func conversations(_ response: TestResponse) -> [[String: Any]] {
    response.object["conversations"] as? [[String: Any]] ?? []
  }

  @Test func waitOutsideOneToSixtyIsInvalidAndNotANumberIsBadRequest() async throws {
    let cursor = try await currentCursor()
    for wait in ["0", "61", "-1"] {
      let response = await sync(bob, cursor: cursor, wait: wait)
      #expect(response.status == 422, "wait=\(wait)")
      #expect(response.errorCode == "invalid")
    }
    #expect(await sync(bob, cursor: cursor, wait: "abc").status == 400)
    #expect(await sync(bob, cursor: cursor, wait: "1.5").status == 400)
  }

  @Test func somethingPendingOrNoCursorAnswersAtOnce() async throws {
    let cursor = try await currentCursor()
    _ = try await server.send("hi", to: conversation, as: alice)
    let pending = await sync(bob, cursor: cursor, wait: "60")
    #expect(pending.status == 200)
    #expect(conversations(pending).map { $0["id"] as? String } == [conversation])
    let everything = await sync(bob, cursor: nil, wait: "60")
    #expect(conversations(everything).count == 1)
    #expect(await server.service.fanOut.longPolls.heldCount == 0)
  }

  @Test func nothingChangedAnswersAfterWaitWithTheSameCursor() async throws {
    let cursor = try await currentCursor()
    let poll = await holdPoll(cursor: cursor, wait: 25)
    server.clock.advance(by: .seconds(24))
    #expect(await server.service.fanOut.longPolls.heldCount == 1)
    server.clock.advance(by: .seconds(1))
    let response = await poll.value
    #expect(response.status == 200)
    #expect(response.object["cursor"] as? String == cursor)
    #expect(conversations(response).isEmpty)
  }

  @Test func aMessageMidWaitAnswersAtOnce() async throws {
    let cursor = try await currentCursor()
    let poll = await holdPoll(cursor: cursor, wait: 60)
    _ = try await server.send("hi", to: conversation, as: alice)
    let response = await poll.value
    let items = conversations(response)
    #expect(items.map { $0["id"] as? String } == [conversation])
    #expect((items.first?["lastMessage"] as? [String: Any])?["text"] as? String == "hi")
    #expect(response.object["cursor"] as? String != cursor)
  }

  @Test func aChangeForSomeoneElseDoesNotAnswerThePoll() async throws {
    let carol = try await server.login("carol")
    let theirs = try await server.createConversation(by: alice, with: ["carol"])
    let cursor = try await currentCursor()
    let poll = await holdPoll(cursor: cursor, wait: 10)
    _ = try await server.send("not for bob", to: theirs, as: carol)
    // A change bob is told of but that moves nothing past his cursor (his own read of
    // nothing new) wakes the poll, which looks and holds again.
    await server.endReceiptWindows()
    #expect(await server.service.fanOut.longPolls.heldCount == 1)
    server.clock.advance(by: .seconds(10))
    let response = await poll.value
    #expect(conversations(response).isEmpty)
    // Nothing changed for bob: the same cursor (API.md), though the server moved on.
    #expect(response.object["cursor"] as? String == cursor)
  }

  @Test func aStoppingServerAnswersHeldPollsAtOnce() async throws {
    let cursor = try await currentCursor()
    let poll = await holdPoll(cursor: cursor, wait: 60)
    await server.service.endLongPolls()
    let response = await poll.value
    #expect(response.status == 200)
    #expect(response.object["cursor"] as? String == cursor)
    // And none is held any more.
    #expect(await sync(bob, cursor: cursor, wait: "60").status == 200)
  }

  @Test func aUserHoldsAtMostEightPollsAtOnce() async throws {
    let cursor = try await currentCursor()
    var polls: [Task<TestResponse, Never>] = []
    for _ in 0..<ChatService.longPollsPerUser {
      polls.append(await holdPoll(cursor: cursor, wait: 30))
    }
    let refused = await sync(bob, cursor: cursor, wait: "30")
    #expect(refused.status == 429)
    #expect(refused.header("Retry-After") != nil)
    // Another user is not held back by bob's.
    polls.append(await holdPoll(alice, cursor: cursor, wait: 30))
    let page = await server.request("GET", "/metrics").text
    #expect(page.contains("chat_long_polls_held \(ChatService.longPollsPerUser + 1)"))
    await server.service.endLongPolls()
    for poll in polls { #expect(await poll.value.status == 200) }
  }
}
