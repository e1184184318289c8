import ChatAPI
import Foundation
import SQLite
import Testing

@testable import ChatServer

@Suite struct GroupCommitTests {
  /// A deterministic clientMessageId for send number `index`.
  static func key(_ index: Int) -> String {
    String(format: "0193a3c4-0000-7000-8000-%012x", index)
  }

  static func sendRequest(
    _ text: String, to conversation: String, as session: Session, key: String
  ) throws -> APIRequest {
    APIRequest(
      method: "POST", path: "/v1/conversations/\(conversation)/messages",
      headers: ["authorization": "Bearer \(session.accessToken)"],
      body: Array(try TestJSON.encode(["clientMessageId": key, "text": text]).utf8))
  }

  /// Starts every request as its own task from inside one job on the server's executor, so
  /// all of them are queued before any runs, and returns the responses in request order.
  static func sendTogether(_ requests: [APIRequest], on server: TestServer) async -> [TestResponse]
  {
    let service = server.service
    let executor = server.executor
    return await executor.spawn { () async -> [TestResponse] in
      let tasks = requests.map { request in executor.spawn { await service.handle(request) } }
      var responses: [TestResponse] = []
      for task in tasks { responses.append(TestResponse(await task.value)) }
      return responses
    }.value
  }

  @Test func concurrentSendsShareOneCommitAndGetConsecutiveSequences() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let commitsBefore = await server.store.statistics.commits
    let requests = try (0..<50).map {
      try Self.sendRequest("m\($0)", to: conversation, as: alice, key: Self.key($0))
    }
    let responses = await Self.sendTogether(requests, on: server)
    #expect(responses.map(\.status) == Array(repeating: 201, count: 50))
    #expect(responses.compactMap { $0.object["sequence"] as? Int } == Array(1...50))
    #expect(await server.store.statistics.commits == commitsBefore + 1)
  }

  @Test func manyTasksSendingAtOnceLeaveNoHoles() async throws {
    let server = try TestServer()
    let users = ["alice", "bob", "carol", "dave"]
    var sessions: [Session] = []
    for user in users { sessions.append(try await server.login(user)) }
    let conversation = try await server.createConversation(
      by: sessions[0], with: Array(users.dropFirst()))
    let other = try await server.createConversation(by: sessions[1], with: ["carol"])
    let service = server.service
    // Tasks on the global pool, arriving in whatever order the machine gives.
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<400 {
        let session = sessions[index % sessions.count]
        let target =
          index % 5 == 0 && session.userId != "alice" && session.userId != "dave"
          ? other : conversation
        let request = try Self.sendRequest(
          "m\(index)", to: target, as: session, key: Self.key(index))
        group.addTask { await service.handle(request).status }
        // A retry of an earlier send, racing with everything else.
        if index % 7 == 0 {
          group.addTask { await service.handle(request).status }
        }
      }
      var statuses: [Int] = []
      for try await status in group { statuses.append(status) }
      return statuses
    }
    #expect(statuses.allSatisfy { $0 == 201 || $0 == 200 })
    #expect(statuses.filter { $0 == 201 }.count == 400)
    for id in [conversation, other] {
      let rows = try await server.rows(
        "SELECT sequence FROM messages WHERE conversation_id = '\(id)' ORDER BY sequence")
      let sequences = rows.compactMap { row -> Int? in
        if case .integer(let value) = row[0] { Int(value) } else { nil }
      }
      #expect(sequences == Array(1...sequences.count))
      let last = try await server.rows("SELECT last_sequence FROM conversations WHERE id = '\(id)'")
      #expect(last == [[.integer(Int64(sequences.count))]])
    }
    let statistics = await server.store.statistics
    #expect(statistics.commits < statistics.committedWrites, "no write shared a commit")
  }

  @Test func aFailingSendInTheMiddleOfABatchFailsAloneAndLeavesNoHole() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let carol = try await server.login("carol")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    _ = try await server.send("before", to: conversation, as: alice, clientMessageId: Self.key(100))
    try await server.store.withDatabase { db in
      try db.execute(
        """
        CREATE TRIGGER fail_on_boom BEFORE INSERT ON messages WHEN NEW.text = 'boom'
        BEGIN SELECT RAISE(ABORT, 'injected failure'); END
        """)
    }
    let commitsBefore = await server.store.statistics.commits
    var requests: [APIRequest] = []
    for index in 0..<10 {
      switch index {
      case 3:
        requests.append(
          try Self.sendRequest("boom", to: conversation, as: alice, key: Self.key(index)))
      case 5:  // reuses the key of the message sent before, with another text
        requests.append(
          try Self.sendRequest("other", to: conversation, as: alice, key: Self.key(100)))
      case 7:  // not a member
        requests.append(
          try Self.sendRequest("hi", to: conversation, as: carol, key: Self.key(index)))
      default:
        requests.append(
          try Self.sendRequest("m\(index)", to: conversation, as: alice, key: Self.key(index)))
      }
    }
    let responses = await Self.sendTogether(requests, on: server)
    #expect(responses.map(\.status) == [201, 201, 201, 500, 201, 409, 201, 404, 201, 201])
    #expect(responses[3].errorCode == "internal")
    let sequences = responses.filter { $0.status == 201 }.compactMap {
      $0.object["sequence"] as? Int
    }
    #expect(sequences == Array(2...8))
    #expect(await server.store.statistics.commits == commitsBefore + 1)
    let stored = try await server.rows(
      "SELECT sequence FROM messages WHERE conversation_id = '\(conversation)' ORDER BY sequence")
    #expect(stored == (1...8).map { [.integer(Int64($0))] })
    let next = try await server.send("after", to: conversation, as: alice)
    #expect(next.object["sequence"] as? Int == 9)
    let failure = server.log.records.first { $0["status"] == "500" }
    #expect(failure?["detail"]?.contains("injected failure") == true)
  }

  @Test func aBatchWhoseTransactionIsLostAnswersUnavailableAndKeepsNothing() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    _ = try await server.send("before", to: conversation, as: alice)
    let bobSubscription = try await server.openLive(bob)
    try await server.store.withDatabase { db in
      try db.execute(
        """
        CREATE TRIGGER lose_transaction BEFORE INSERT ON messages WHEN NEW.text = 'crash'
        BEGIN SELECT RAISE(ROLLBACK, 'injected rollback'); END
        """)
    }
    let requests = try [
      Self.sendRequest("a", to: conversation, as: alice, key: Self.key(1)),
      Self.sendRequest("crash", to: conversation, as: alice, key: Self.key(2)),
      Self.sendRequest("c", to: conversation, as: alice, key: Self.key(3)),
    ]
    let responses = await Self.sendTogether(requests, on: server)
    #expect(responses.map(\.status) == [503, 503, 503])
    #expect(
      responses.allSatisfy { $0.errorCode == "unavailable" && $0.header("Retry-After") == "1" })
    #expect(await server.store.statistics.failedCommits == 1)
    #expect(try await server.rows("SELECT count(*) FROM messages") == [[.integer(1)]])
    #expect(await server.drain(bobSubscription).isEmpty, "nothing uncommitted went live")
    let retried = await Self.sendTogether([requests[0]], on: server)
    #expect(retried[0].status == 201)
    #expect(retried[0].object["sequence"] as? Int == 2)
  }

  @Test func sameInputsGiveTheSameResponsesAndTheSameEvents() async throws {
    func run() async throws -> (responses: [String], events: [[String]], log: [String]) {
      let server = try TestServer(seed: 42)
      let alice = try await server.login("alice")
      let bob = try await server.login("bob")
      let bobTablet = try await server.login("bob", device: "tablet")
      let conversation = try await server.createConversation(by: alice, with: ["bob", "carol"])
      let subscriptions = [
        try await server.openLive(alice), try await server.openLive(bob),
        try await server.openLive(bobTablet),
      ]
      var responses: [String] = []
      for round in 0..<5 {
        server.clock.advance(by: .milliseconds(250))
        var requests: [APIRequest] = []
        for index in 0..<6 {
          let session = index % 2 == 0 ? alice : bob
          requests.append(
            try Self.sendRequest(
              "r\(round)m\(index)", to: conversation, as: session,
              key: Self.key(round * 10 + index / 2)))
        }
        requests.append(
          APIRequest(
            method: "POST", path: "/v1/conversations/\(conversation)/read",
            headers: ["authorization": "Bearer \(bobTablet.accessToken)"],
            body: Array(#"{"upToSequence":\#(round)}"#.utf8)))
        responses += await Self.sendTogether(requests, on: server).map { "\($0.status) \($0.text)" }
      }
      await subscriptions[1].receive(#"{"type":"typing","conversationId":"\#(conversation)"}"#)
      responses.append(await server.request("GET", "/v1/sync", token: alice.accessToken).text)
      responses.append(
        await server.request("GET", "/v1/conversations", token: bob.accessToken).text)
      var events: [[String]] = []
      for subscription in subscriptions {
        await subscription.close()
        var frames: [String] = []
        for await frame in subscription.events { frames.append(frame) }
        events.append(frames)
      }
      return (responses, events, server.log.records.map(\.line))
    }
    let first = try await run()
    let second = try await run()
    #expect(first.responses == second.responses)
    #expect(first.events == second.events)
    #expect(first.log == second.log)
    #expect(first.events.allSatisfy { !$0.isEmpty })
  }
}
