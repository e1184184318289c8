import ChatAPI
import Testing

@testable import ChatServer

extension ChatService {
  /// Counts `count` catch-up reads as running (a test stands in for a crowd mid-read).
  fileprivate func occupyCatchUps(_ count: Int) { catchUpsInFlight += count }
}

/// Catch-up work in flight is bounded (issue 38): past `maxCatchUpsInFlight` a catch-up read is
/// answered at once with 503 and a `Retry-After` of 1 to 3 s, other work goes on, and a long
/// poll that only waits takes no place.
@Suite struct CatchUpAdmissionTests {
  let server: TestServer
  let alice: Session
  let conversation: String

  init() async throws {
    var configuration = TestServer.defaultConfiguration
    configuration.maxCatchUpsInFlight = 2
    server = try TestServer(configuration: configuration)
    alice = try await server.login("alice")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  func metric(_ name: String) async -> Int? {
    let page = await server.request("GET", "/metrics").text
    let line = page.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") }
  }

  @Test func pastTheBoundACatchUpIsUnavailableWithRetryAfterAndOtherWorkGoesOn() async throws {
    await server.service.occupyCatchUps(2)
    let page = await server.messages(in: conversation, as: alice)
    #expect(page.status == 503)
    #expect(page.errorCode == "unavailable")
    let wait = try #require(page.header("Retry-After").flatMap { Int($0) })
    #expect((1...3).contains(wait))
    let sync = await server.request("GET", "/v1/sync", token: alice.accessToken)
    #expect(sync.status == 503 && sync.header("Retry-After") != nil)
    // A send is no catch-up: it is taken.
    #expect(try await server.send("hello", to: conversation, as: alice).status == 201)
    #expect(await metric("chat_catch_ups_shed_total") == 2)
    // Once a place is free, the next catch-up is served.
    await server.service.occupyCatchUps(-1)
    let served = await server.messages(in: conversation, as: alice)
    #expect(served.status == 200)
    #expect((served.object["items"] as? [[String: Any]])?.count == 1)
  }

  @Test func theRetryAfterIsSpreadSoARefusedCrowdComesBackSpreadOut() async throws {
    await server.service.occupyCatchUps(2)
    var waits = Set<String>()
    for _ in 0..<40 {
      waits.insert(await server.messages(in: conversation, as: alice).header("Retry-After") ?? "")
    }
    #expect(waits == ["1", "2", "3"])
  }

  @Test func aLongPollThatOnlyWaitsTakesNoPlace() async throws {
    let cursor = try #require(
      await server.request("GET", "/v1/sync", token: alice.accessToken).object["cursor"]
        as? String)
    let before = await server.service.fanOut.longPolls.heldCount
    let server = server
    let token = alice.accessToken
    let polls = (0..<2).map { _ in
      Task {
        var query: QueryItems = [:]
        query.append("cursor", cursor)
        query.append("wait", "30")
        return await server.request("GET", "/v1/sync", query: query, token: token)
      }
    }
    while await server.service.fanOut.longPolls.heldCount < before + 2 { await Task.yield() }
    // Both held; the bound is 2, and a catch-up is still served.
    #expect(await server.messages(in: conversation, as: alice).status == 200)
    #expect(try await server.send("wakes them", to: conversation, as: alice).status == 201)
    for poll in polls { #expect(await poll.value.status == 200) }
  }
}
