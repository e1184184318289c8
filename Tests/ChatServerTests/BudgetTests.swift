import ChatAPI
import ChatTestSupport
import Support
import Testing

@testable import ChatServer

/// The budgets of issue 33 beyond the per-user one (`RateLimitTests`): per address on what is
/// asked without a valid token, and typing per socket.
@Suite struct BudgetTests {
  static let address = "203.0.113.7"

  /// A server whose addresses may ask 3 times, then once every 2 seconds.
  static func server() throws -> TestServer {
    var configuration = TestServer.defaultConfiguration
    configuration.addressRateLimit = RateLimit(burst: 3, perSecond: 0.5)
    return try TestServer(configuration: configuration)
  }

  static func login(
    _ server: TestServer, _ user: String, from address: String? = BudgetTests.address
  ) async -> APIResponse {
    await server.service.handle(
      APIRequest(
        method: "POST", path: "/v1/auth/dev-login",
        body: Array(#"{"userId":"\#(user)","deviceId":"phone"}"#.utf8), peerAddress: address))
  }

  static func upgrade(
    _ server: TestServer, token: String, from address: String = BudgetTests.address
  ) async -> Int {
    let request = APIRequest(
      method: "GET", path: "/v1/live", headers: ["authorization": "Bearer \(token)"],
      peerAddress: address)
    switch await server.service.openLive(request) {
    case .accepted(let subscription):
      await subscription.close()
      return 101
    case .refused(let response): return response.status
    }
  }

  @Test func signInsAndRefreshesFromOneAddressShareABudgetAnswered429WithRetryAfter()
    async throws
  {
    let server = try Self.server()
    for user in ["a", "b", "c"] { #expect(await Self.login(server, user).status == 200) }
    let spent = TestResponse(await Self.login(server, "d"))
    #expect(spent.status == 429)
    #expect(spent.errorCode == "rate_limited")
    #expect(spent.header("Retry-After") == "2")
    // The budget comes before anything about the body: these routes have no token.
    let refresh = await server.service.handle(
      APIRequest(
        method: "POST", path: "/v1/auth/refresh", body: Array("not json".utf8),
        peerAddress: Self.address))
    #expect(refresh.status == 429)
    // Another address has its own; a request that came over no network has none.
    #expect(await Self.login(server, "d", from: "198.51.100.1").status == 200)
    #expect(await Self.login(server, "d", from: nil).status == 200)
    server.clock.advance(by: .seconds(2))
    #expect(await Self.login(server, "d").status == 200)
  }

  @Test func aLiveUpgradeSpendsTheAddressBudgetOnlyWhenItsTokenIsRefused() async throws {
    let server = try Self.server()
    let alice = try await server.login("alice")
    for _ in 1...5 { #expect(await Self.upgrade(server, token: alice.accessToken) == 101) }
    for _ in 1...3 { #expect(await Self.upgrade(server, token: "not-a-token") == 401) }
    #expect(await Self.upgrade(server, token: "not-a-token") == 429)
    #expect(
      await Self.upgrade(server, token: alice.accessToken) == 101, "a valid token still opens")
    #expect(await Self.upgrade(server, token: "not-a-token", from: "198.51.100.1") == 401)
  }

  @Test func typingIsRelayedUpToTheSocketsBudgetAndTheRestDroppedAndCounted() async throws {
    var configuration = TestServer.defaultConfiguration
    configuration.typingLimit = RateLimit(burst: 5, perSecond: 1)
    let server = try TestServer(configuration: configuration)
    let alice = try await server.login("alice")
    let tablet = try await server.login("alice", device: "tablet")
    let bob = try await server.login("bob")
    let conversation = try await server.createConversation(by: alice, with: ["bob"])
    let typing = #"{"type":"typing","conversationId":"\#(conversation)"}"#
    let phone = try await server.openLive(alice)
    let other = try await server.openLive(tablet)
    let listener = try await server.openLive(bob)
    for _ in 1...8 { await phone.receive(typing) }
    await other.receive(typing)
    server.clock.advance(by: .seconds(1))
    await phone.receive(typing)
    let relayed = await server.drain(listener).filter { $0["type"] as? String == "typing" }
    #expect(relayed.count == 7, "5 from the phone, the tablet's own, then 1 a second later")
    let metrics = await server.request("GET", "/metrics").text
    #expect(metrics.contains("chat_live_typing_dropped_total 3\n"))
    #expect(metrics.contains("chat_live_frames_ignored_total 0\n"))
    for subscription in [phone, other] { await subscription.close() }
  }
}
