import ChatAPI
import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Support

@testable import ChatServer

/// ChatTestSupport's `WorldServer` (the real `ChatService` over a real SQLite store, on one
/// `ThreadExecutor`, with a manual clock and a seeded random stream), spoken to in raw
/// requests.
final class TestServer: Sendable {
  let server: WorldServer
  var executor: ThreadExecutor { server.executor }
  var store: ServerStore { server.store }
  var service: ChatService { server.service }
  var clock: ManualClock { server.clock }
  var log: CapturingLogSink { server.log }

  init(
    configuration: ServerConfiguration = TestServer.defaultConfiguration,
    location: ServerStore.Location = .memory,
    seed: UInt64 = 1,
    clock: ManualClock = ManualClock(wallClock: TestServer.start),
    media: (any MediaStorage)? = nil,
    pushGateway: (any PushGateway)? = nil,
    relay: (any LiveRelay)? = nil
  ) throws {
    server = try WorldServer(
      name: "test.server", configuration: configuration, location: location, clock: clock,
      seed: seed, media: media, pushGateway: pushGateway, relay: relay)
  }

  deinit {
    server.executor.shutdown()
  }

  /// 2026-11-30T14:02:03.123Z: where the clock starts unless a test says otherwise.
  static let start = Timestamp(millisecondsSince1970: 1_796_047_323_123)

  /// Dev mode on, rate limiting off: what most tests want.
  static var defaultConfiguration: ServerConfiguration {
    ServerConfiguration(devMode: true, rateLimit: nil)
  }

  // MARK: - Requests

  func request(
    _ method: String, _ path: String, query: QueryItems = [:], token: String? = nil,
    body: String? = nil, headers: HeaderFields = [:]
  ) async -> TestResponse {
    await request(
      method, path, query: query, token: token, bytes: body.map { Array($0.utf8) } ?? [],
      headers: headers)
  }

  func request(
    _ method: String, _ path: String, query: QueryItems = [:], token: String? = nil,
    bytes: [UInt8], headers: HeaderFields = [:]
  ) async -> TestResponse {
    var headers = headers
    if let token { headers["authorization"] = "Bearer \(token)" }
    let response = await service.handle(
      APIRequest(method: method, path: path, query: query, headers: headers, body: bytes))
    return TestResponse(response)
  }

  func login(_ user: String, device: String = "phone") async throws -> Session {
    let response = await request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"\#(user)","deviceId":"\#(device)"}"#)
    guard response.status == 200, let access = response.object["accessToken"] as? String,
      let refresh = response.object["refreshToken"] as? String
    else { throw TestFailure("dev-login failed: \(response.status) \(response.text)") }
    return Session(userId: user, deviceId: device, accessToken: access, refreshToken: refresh)
  }

  func createConversation(
    by session: Session, with members: [String], title: String = "Chat"
  ) async throws -> String {
    let body = try TestJSON.encode(["title": title, "memberIds": members])
    let response = await request(
      "POST", "/v1/conversations", token: session.accessToken, body: body)
    guard response.status == 201, let id = response.object["id"] as? String else {
      throw TestFailure("create failed: \(response.status) \(response.text)")
    }
    return id
  }

  func send(
    _ text: String, to conversation: String, as session: Session,
    clientMessageId: String = UUID().uuidString
  ) async throws -> TestResponse {
    let body = try TestJSON.encode(["clientMessageId": clientMessageId, "text": text])
    return await request(
      "POST", "/v1/conversations/\(conversation)/messages", token: session.accessToken, body: body)
  }

  /// Posts an item of any kind: `body` is the JSON object of API.md's POST .../messages.
  func post(
    _ body: [String: String], to conversation: String, as session: Session
  ) async throws -> TestResponse {
    await request(
      "POST", "/v1/conversations/\(conversation)/messages", token: session.accessToken,
      body: try TestJSON.encode(body))
  }

  func messages(
    in conversation: String, as session: Session, query: QueryItems = [:]
  ) async -> TestResponse {
    await request(
      "GET", "/v1/conversations/\(conversation)/messages", query: query,
      token: session.accessToken)
  }

  func openLive(_ session: Session) async throws -> LiveSubscription {
    let upgrade = await service.openLive(
      APIRequest(
        method: "GET", path: "/v1/live", headers: ["authorization": "Bearer \(session.accessToken)"]
      ))
    guard case .accepted(let subscription) = upgrade else {
      throw TestFailure("live refused")
    }
    return subscription
  }

  /// Ends every receipts window: the clock moves past it, and the frames due have gone out
  /// when this returns.
  func endReceiptWindows() async {
    clock.advance(by: ReceiptCoalescer.window)
    for frame in await service.receipts.dueFlushes() { await frame.value }
  }

  /// Closes `subscription` and returns every event it had received, parsed.
  func drain(_ subscription: LiveSubscription) async -> [[String: Any]] {
    await subscription.close()
    var events: [[String: Any]] = []
    for await frame in subscription.events {
      events.append(TestJSON.object(frame))
    }
    return events
  }

  /// The SQL rows of one query, for checks on what is stored.
  func rows(_ sql: String) async throws -> [[SQLValue]] {
    try await store.withDatabase { db in
      try db.query(sql) { row in (0..<row.columnCount).map { row.value($0) } }
    }
  }
}

/// A signed-in device.
struct Session: Sendable {
  var userId: String
  var deviceId: String
  var accessToken: String
  var refreshToken: String
}

/// A response with its body parsed by Foundation (an independent JSON reader).
struct TestResponse: @unchecked Sendable {
  // @unchecked: `json` holds Foundation property-list values, immutable once parsed.
  let status: Int
  let headers: [(name: String, value: String)]
  let body: [UInt8]
  let json: Any?

  init(_ response: APIResponse) {
    status = response.status
    headers = response.headers.fields
    body = response.body
    json = try? JSONSerialization.jsonObject(
      with: Data(response.body), options: [.fragmentsAllowed])
  }

  var text: String { String(decoding: body, as: UTF8.self) }
  var object: [String: Any] { json as? [String: Any] ?? [:] }
  var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
  var items: [[String: Any]] { object["items"] as? [[String: Any]] ?? [] }
  var sequences: [Int] { items.compactMap { $0["sequence"] as? Int } }
  var hasMore: Bool? { object["hasMore"] as? Bool }

  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

enum TestJSON {
  static func encode(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
  }

  static func object(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
  }
}

struct TestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
