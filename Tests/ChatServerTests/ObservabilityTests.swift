import ChatServer
import Testing

@Suite struct ObservabilityTests {
  static let secret = "the eagle lands at midnight"

  /// A session of every kind of request, with `secret` as the message text; and bob's live
  /// subscription, open (dropping it would close it).
  static func busyServer() async throws -> (TestServer, [Session], LiveSubscription) {
    let server = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, rateLimit: RateLimit(burst: 50, perSecond: 1)))
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let live = try await server.openLive(bob)
    let key = "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
    _ = try await server.send(secret, to: conversation, as: alice, clientMessageId: key)
    _ = try await server.send(secret, to: conversation, as: alice, clientMessageId: key)
    _ = try await server.send(secret + "!", to: conversation, as: alice, clientMessageId: key)
    _ = await server.messages(in: conversation, as: bob)
    _ = await server.request(
      "POST", "/v1/conversations/\(conversation)/read", token: bob.accessToken,
      body: #"{"upToSequence":1}"#)
    await live.receive(#"{"type":"typing","conversationId":"\#(conversation)"}"#)
    _ = await server.request(
      "POST", "/v1/auth/refresh", body: #"{"refreshToken":"\#(alice.refreshToken)"}"#)
    _ = await server.request("GET", "/v1/conversations", token: "garbage")
    _ = await server.request("GET", "/healthz")
    return (server, [alice, bob], live)
  }

  @Test func everyRequestLogsOneLineWithRouteStatusAndDuration() async throws {
    let server = try TestServer()
    let alice = try await server.login("alice")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    server.clock.advance(by: .seconds(1))
    _ = try await server.send("hello", to: conversation, as: alice)
    _ = await server.request("GET", "/v1/conversations/\(conversation)/receipts")
    let requests = server.log.records.filter { $0.event == "request" }
    #expect(requests.count == 4)
    let send = requests[2]
    #expect(send["method"] == "POST")
    #expect(send["route"] == "/v1/conversations/{id}/messages")
    #expect(send["status"] == "201")
    #expect(send["duration_us"] == "0")
    #expect(send["user"] == "alice")
    #expect(requests[3]["status"] == "401")
    #expect(requests[3]["code"] == "unauthorized")
    #expect(
      send.line
        == "event=request level=info method=POST route=/v1/conversations/{id}/messages status=201 duration_us=0 user=alice"
    )
  }

  @Test func logsAndMetricsHoldNoMessageTextTokensOrConversationIds() async throws {
    let (server, sessions, _) = try await Self.busyServer()
    let metrics = await server.request("GET", "/metrics").text
    let log = server.log.records.map(\.line).joined(separator: "\n")
    let conversationIds = try await server.rows("SELECT id FROM conversations").map { "\($0[0])" }
    var secrets = [Self.secret, "eagle"] + conversationIds
    for session in sessions { secrets += [session.accessToken, session.refreshToken] }
    for secret in secrets {
      #expect(!metrics.contains(secret), "metrics leak \(secret)")
      #expect(!log.contains(secret), "log leaks \(secret)")
    }
  }

  @Test func metricsCountRequestsSendsRetriesEventsAndDurations() async throws {
    let (server, _, live) = try await Self.busyServer()
    // bob's read came inside the receipts window of alice's send: it goes at its end.
    await server.endReceiptWindows()
    let metrics = await server.request("GET", "/metrics").text
    let expected = [
      #"chat_requests_total{method="POST",route="/v1/conversations/{id}/messages",status="201"} 1"#,
      #"chat_requests_total{method="POST",route="/v1/conversations/{id}/messages",status="200"} 1"#,
      #"chat_requests_total{method="POST",route="/v1/conversations/{id}/messages",status="409"} 1"#,
      #"chat_requests_total{method="GET",route="/v1/conversations",status="401"} 1"#,
      #"chat_requests_total{method="GET",route="/v1/live",status="101"} 1"#,
      #"chat_requests_total{method="GET",route="/healthz",status="200"} 1"#,
      "chat_sends_accepted_total 1",
      "chat_send_retries_recognised_total 1",
      // bob's phone: the message, alice's raised receipt, bob's read receipt (the typing was
      // bob's own, so it went to alice, who has no subscription).
      "chat_live_events_total 3",
      "chat_live_subscriptions_open 1",
      "# TYPE chat_request_duration_seconds histogram",
      #"chat_request_duration_seconds_bucket{le="+Inf"} 12"#,
      "chat_request_duration_seconds_count 12",
      "# TYPE chat_store_commits_total counter",
    ]
    for line in expected {
      #expect(metrics.contains(line + "\n"), "missing: \(line)")
    }
    await live.close()
    for line in metrics.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ")
      #expect(parts.count == 2 && Double(parts[1]) != nil, "not a sample line: \(line)")
    }
  }

  @Test func unknownMethodsAreCountedAsOther() async throws {
    let server = try TestServer()
    _ = await server.request("BREW", "/coffee")
    let metrics = await server.request("GET", "/metrics").text
    #expect(
      metrics.contains(#"chat_requests_total{method="other",route="unmatched",status="401"} 1"#))
    #expect(!metrics.contains("BREW"))
  }
}

@Suite struct RateLimitTests {
  @Test func aUserOverTheBudgetGetsRetryAfterAndRecoversWithTime() async throws {
    let server = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, rateLimit: RateLimit(burst: 2, perSecond: 0.25)))
    let alice = try await server.login("alice")
    let bob = try await server.login("bob")
    #expect(
      await server.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    #expect(
      await server.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    let limited = await server.request("GET", "/v1/conversations", token: alice.accessToken)
    #expect(limited.status == 429)
    #expect(limited.errorCode == "rate_limited")
    #expect(limited.header("Retry-After") == "4")
    #expect(await server.request("GET", "/v1/conversations", token: bob.accessToken).status == 200)
    server.clock.advance(by: .seconds(3))
    let stillLimited = await server.request("GET", "/v1/conversations", token: alice.accessToken)
    #expect(stillLimited.header("Retry-After") == "1")
    server.clock.advance(by: .seconds(1))
    #expect(
      await server.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
  }

  @Test func theLimitIsPerUserAcrossDevices() async throws {
    let server = try TestServer(
      configuration: ServerConfiguration(
        devMode: true, rateLimit: RateLimit(burst: 1, perSecond: 1)))
    let phone = try await server.login("alice")
    let tablet = try await server.login("alice", device: "tablet")
    #expect(
      await server.request("GET", "/v1/conversations", token: phone.accessToken).status == 200)
    #expect(
      await server.request("GET", "/v1/conversations", token: tablet.accessToken).status == 429)
  }

  @Test func noLimitWhenDisabled() async throws {
    let server = try TestServer(configuration: ServerConfiguration(devMode: true, rateLimit: nil))
    let alice = try await server.login("alice")
    for _ in 0..<500 {
      #expect(
        await server.request("GET", "/v1/conversations", token: alice.accessToken).status == 200)
    }
  }
}
