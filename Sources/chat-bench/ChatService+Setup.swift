import ChatServer
import Foundation

/// Setting up a figure's users and conversations: straight to the service, not measured.
extension ChatService {
  /// Calls a route with a JSON body; throws unless it answers 2xx; returns the JSON object.
  nonisolated func call(
    _ method: String, _ path: String, token: String? = nil, json: [String: Any]? = nil
  ) async throws -> [String: Any] {
    var headers: [String: String] = [:]
    if let token { headers["authorization"] = "Bearer \(token)" }
    let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
    let response = await handle(
      APIRequest(method: method, path: path, headers: headers, body: body))
    guard (200..<300).contains(response.status) else {
      throw BenchError(
        "\(method) \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
    }
    if response.body.isEmpty { return [:] }
    return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
  }

  /// Signs a user in (dev login); returns the access token.
  nonisolated func signIn(_ user: String, device: String = "phone") async throws -> String {
    let answer = try await call(
      "POST", "/v1/auth/dev-login", json: ["userId": user, "deviceId": device])
    guard let token = answer["accessToken"] as? String else { throw BenchError("no token") }
    return token
  }

  /// Creates a conversation; returns its id.
  nonisolated func createConversation(
    token: String, title: String, members: [String]
  ) async throws -> String {
    let answer = try await call(
      "POST", "/v1/conversations", token: token, json: ["title": title, "memberIds": members])
    guard let id = answer["id"] as? String else { throw BenchError("no conversation id") }
    return id
  }

  /// Posts a message; returns its sequence.
  @discardableResult
  nonisolated func post(token: String, conversation: String, text: String) async throws -> Int {
    let answer = try await call(
      "POST", "/v1/conversations/\(conversation)/messages", token: token,
      json: ["clientMessageId": UUID().uuidString.lowercased(), "text": text])
    return answer["sequence"] as? Int ?? 0
  }

  /// The store's commit count, from /metrics.
  nonisolated func commits() async -> Int {
    let response = await handle(.init(method: "GET", path: "/metrics"))
    let text = String(decoding: response.body, as: UTF8.self)
    let line = text.split(separator: "\n").first { $0.hasPrefix("chat_store_commits_total ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
  }
}
