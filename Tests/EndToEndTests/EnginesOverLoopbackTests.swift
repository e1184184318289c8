import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatTransports
import Foundation
import Testing
import Wire

/// Real engines (WireHTTPTransport + WireLiveTransport) against the reference server started
/// in-process on an ephemeral loopback port: everything crosses real sockets.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EnginesOverLoopbackTests {
  @Test func twoEnginesExchangeMessagesAndReceiptsOverRealSockets() async throws {
    let server = try LoopbackServer()
    let alice = try await server.engine("alice")
    let bob = try await server.engine("bob")
    await alice.start()
    await bob.start()
    _ = try await firstValue(of: bob.connectionStates(), "bob's socket") { $0 == .connected }

    // Given a conversation alice creates, which bob hears of on his open socket
    let conversation = try await alice.conversationList.createConversation(
      title: "Loopback", memberIDs: [UserID("bob")])
    _ = try await firstValue(of: bob.conversationList.conversations(), "bob's list") {
      $0.contains { $0.id == conversation }
    }

    // When alice sends, bob's engine gets it live, and alice's row turns sent
    let sent = try await alice.messages.send("hello over loopback", in: conversation)
    let bobsView = try await firstValue(of: bob.messages.messages(in: conversation), "bob's copy") {
      $0.contains { $0.id == sent && $0.sequence == 1 }
    }
    #expect(bobsView.map(\.text) == ["hello over loopback"])
    _ = try await firstValue(of: alice.messages.messages(in: conversation), "alice's sent tick") {
      $0.first { $0.id == sent }?.send == .sent
    }

    // Then bob reads it and alice sees the read tick arrive; bob answers and alice gets it
    bob.messages.markRead(upTo: 1, in: conversation)
    _ = try await firstValue(of: alice.messages.messages(in: conversation), "alice's read tick") {
      $0.first { $0.id == sent }?.receipt == .read
    }
    let reply = try await bob.messages.send("hi alice", in: conversation)
    let alicesView = try await firstValue(
      of: alice.messages.messages(in: conversation), "bob's reply at alice"
    ) { $0.contains { $0.id == reply && $0.sequence == 2 } }
    #expect(alicesView.map(\.text) == ["hello over loopback", "hi alice"])
    #expect(alicesView.map(\.sequence) == [1, 2])

    let metrics = try await Self.get("/metrics", from: server)
    #expect(metrics.contains("chat_sends_accepted_total 2\n"))
    #expect(!metrics.contains("hello over loopback") && !metrics.contains("hi alice"))
    #expect(metrics.contains("chat_live_subscriptions_open 2\n"))
    #expect(!server.log.lines.joined().contains("hello over loopback"))

    await alice.close()
    await bob.close()
    await server.stop()
  }

  @Test func anExpiredTokenIsRefreshedOverHTTPAndTheSendGoesThrough() async throws {
    let server = try LoopbackServer()
    let alice = try await server.engine("alice")
    let conversation = try await alice.conversationList.createConversation(
      title: "Later", memberIDs: [UserID("bob")])

    // The server's clock moves past the token's 900 s; the client's does not know
    server.clock.advance(by: .seconds(1_000))
    let sent = try await alice.messages.send("after the expiry", in: conversation)
    await alice.start()
    _ = try await firstValue(of: alice.messages.messages(in: conversation), "the send") {
      $0.first { $0.id == sent }?.send == .sent
    }

    let lines = server.log.lines
    #expect(lines.contains { $0.contains("status=401") })
    #expect(lines.contains { $0.contains("route=/v1/auth/refresh status=200") })
    #expect(!lines.joined().contains("after the expiry"))
    await alice.close()
    await server.stop()
  }

  @Test func aGracefulStopClosesLiveSocketsWithGoingAway() async throws {
    let server = try LoopbackServer()
    let login = try await Self.post(
      "/v1/auth/dev-login", #"{"userId":"carol","deviceId":"cli"}"#, to: server)
    let token = try APICoding.decode(Tokens.self, from: login).accessToken
    let socket = try await WebSocketClient.connect(
      to: server.liveURL, headers: ["Authorization": "Bearer \(token)"],
      connectTimeout: .seconds(60))

    // The client answers the server's close frame while someone waits for the end.
    async let closed: Void = socket.waitUntilClosed()
    await server.stop()

    await closed
    #expect(socket.closeCode == .goingAway)
  }

  static func get(_ path: String, from server: LoopbackServer) async throws -> String {
    let response = try await WireHTTPTransport(
      baseURL: server.baseURL, timeout: .seconds(60), configuration: LoopbackServer.patientHTTP
    ).send(
      APIRequest(method: "GET", path: path))
    #expect(response.status == 200)
    return String(decoding: response.body, as: UTF8.self)
  }

  static func post(_ path: String, _ body: String, to server: LoopbackServer) async throws
    -> [UInt8]
  {
    let response = try await WireHTTPTransport(
      baseURL: server.baseURL, timeout: .seconds(60), configuration: LoopbackServer.patientHTTP
    ).send(
      APIRequest(
        method: "POST", path: path, headers: ["Content-Type": "application/json"],
        body: Array(body.utf8)))
    #expect(response.status == 200)
    return response.body
  }
}
