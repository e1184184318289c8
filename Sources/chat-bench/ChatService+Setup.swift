import ChatAPI
import ChatServer
import Foundation

/// Setting up a figure's users and conversations: straight to the service, not measured.
extension ChatService {
  /// Sends `request` (with the token, if any); throws unless it answers 2xx.
  nonisolated func call(_ request: APIRequest, token: String? = nil) async throws -> APIResponse {
    var request = request
    if let token { request.headers["Authorization"] = "Bearer \(token)" }
    let response = await handle(request)
    guard (200..<300).contains(response.status) else {
      throw BenchError(
        "\(request.method) \(request.path): \(response.status) "
          + String(decoding: response.body, as: UTF8.self))
    }
    return response
  }

  /// Signs a user in (dev login); returns the access token.
  nonisolated func signIn(_ user: String, device: String = "phone") async throws -> String {
    let response = try await call(
      APIRequest(.devLogin, json: DevLogin(userId: user, deviceId: device)))
    return try APICoding.decode(Tokens.self, from: response.body).accessToken
  }

  /// Creates a conversation; returns its id.
  nonisolated func createConversation(
    token: String, title: String, members: [String]
  ) async throws -> String {
    let response = try await call(
      APIRequest(
        .createConversation, json: CreateConversation(title: title, memberIds: members)),
      token: token)
    return try APICoding.decode(CreatedConversation.self, from: response.body).conversation.id
  }

  /// Posts a message; returns its sequence.
  @discardableResult
  nonisolated func post(token: String, conversation: String, text: String) async throws -> Int {
    let response = try await call(
      APIRequest(
        .postItem(conversation: conversation),
        json: PostItem(clientMessageId: UUID().uuidString.lowercased(), text: text)),
      token: token)
    return try APICoding.decode(Item.self, from: response.body).sequence
  }

  /// The store's commit count, from /metrics.
  nonisolated func commits() async -> Int {
    let response = await handle(APIRequest(.metrics))
    let text = String(decoding: response.body, as: UTF8.self)
    let line = text.split(separator: "\n").first { $0.hasPrefix("chat_store_commits_total ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
  }
}
