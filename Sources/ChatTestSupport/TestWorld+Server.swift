import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatServer
import Foundation

/// A message as the server holds it.
public struct ServerMessage: Decodable, Equatable, Sendable {
  public let clientMessageId: String
  public let senderId: String
  public let text: String
  public let sequence: Int
  /// Part 2's fields (nil from a Part 1 shape).
  public let kind: String?
  public let target: String?
  public let editedAt: String?
  public let deleted: Bool?
  /// Part 3's fields (nil from an older shape).
  public let reactions: [ReactionGroup]?
  public let replyTo: ReplyTo?
  public let mentions: [String]?
  public let forwarded: Bool?
}

extension TestWorld {
  /// Everything the server holds in a conversation, in sequence order, read as `user` (a
  /// member) straight from the service, past every fault.
  public func serverLog(_ conversation: ConversationID, as user: String) async throws
    -> [ServerMessage]
  {
    let token = try await accessToken(for: user)
    var all: [ServerMessage] = []
    var after = 0
    while true {
      let response = await service.handle(
        APIRequest(
          method: "GET", path: "/v1/conversations/\(conversation)/messages",
          query: ["after": String(after), "limit": "200"],
          headers: ["authorization": "Bearer \(token)"]))
      struct Page: Decodable {
        let items: [ServerMessage]
        let hasMore: Bool
      }
      guard response.status == 200 else { throw ServerLogError(status: response.status) }
      let page = try JSONDecoder().decode(Page.self, from: Data(response.body))
      all += page.items
      guard page.hasMore, let last = page.items.last else { return all }
      after = last.sequence
    }
  }

  /// Posts a message straight to the service as `user`, past every fault (another client).
  @discardableResult
  public func post(
    _ text: String, in conversation: ConversationID, as user: String,
    clientMessageId: String = UUID().uuidString.lowercased()
  ) async throws -> Int {
    try await postItem(
      ["clientMessageId": clientMessageId, "text": text], in: conversation, as: user)
  }

  /// Deletes `user`'s message `target` (its client message ID) straight on the service.
  @discardableResult
  public func delete(_ target: String, in conversation: ConversationID, as user: String)
    async throws -> Int
  {
    try await postItem(
      ["clientMessageId": UUID().uuidString.lowercased(), "kind": "delete", "target": target],
      in: conversation, as: user)
  }

  /// Edits `user`'s message `target` (its client message ID) straight on the service.
  @discardableResult
  public func edit(
    _ target: String, to text: String, in conversation: ConversationID, as user: String
  ) async throws -> Int {
    try await postItem(
      [
        "clientMessageId": UUID().uuidString.lowercased(), "kind": "edit", "target": target,
        "text": text,
      ], in: conversation, as: user)
  }

  /// Reacts with `emoji` to the message `target` (its client message ID) straight on the
  /// service as `user` (API.md Part 3); returns the status.
  @discardableResult
  public func react(
    _ emoji: String, to target: String, in conversation: ConversationID, as user: String,
    remove: Bool = false
  ) async throws -> Int {
    let item = PostItem(
      clientMessageId: UUID().uuidString.lowercased(), text: nil, kind: .reaction,
      target: target, emoji: emoji, remove: remove)
    return try await post(APICoding.encode(item), in: conversation, as: user)
  }

  /// Pins the message `target` (its client message ID), or unpins it, straight on the service
  /// as `user` (API.md Part 3, "Pins"); returns the status.
  @discardableResult
  public func pin(
    _ target: String, in conversation: ConversationID, as user: String, remove: Bool = false
  ) async throws -> Int {
    let item = PostItem(
      clientMessageId: UUID().uuidString.lowercased(), text: nil, kind: .pin, target: target,
      remove: remove)
    return try await post(APICoding.encode(item), in: conversation, as: user)
  }

  private func postItem(
    _ fields: [String: String], in conversation: ConversationID, as user: String
  )
    async throws -> Int
  {
    try await post(Array(try JSONEncoder().encode(fields)), in: conversation, as: user)
  }

  private func post(_ body: [UInt8], in conversation: ConversationID, as user: String)
    async throws -> Int
  {
    let token = try await accessToken(for: user)
    let response = await service.handle(
      APIRequest(
        method: "POST", path: "/v1/conversations/\(conversation)/messages",
        headers: ["authorization": "Bearer \(token)", "content-type": "application/json"],
        body: body))
    return response.status
  }

  /// The conversation as `GET /v1/conversations` serves it to `user`, straight from the service.
  public func conversationItem(_ conversation: ConversationID, as user: String) async throws
    -> ConversationItem
  {
    let token = try await accessToken(for: user)
    let response = await service.handle(
      APIRequest(
        method: "GET", path: "/v1/conversations",
        headers: ["authorization": "Bearer \(token)"]))
    guard response.status == 200 else { throw ServerLogError(status: response.status) }
    let page = try APICoding.decode(ConversationList.self, from: response.body)
    guard let item = page.items.first(where: { $0.id == conversation.rawValue }) else {
      throw ServerLogError(status: 404)
    }
    return item
  }

  /// Raises `user`'s read number straight on the service.
  public func markRead(upTo sequence: Int, in conversation: ConversationID, as user: String)
    async throws
  {
    let token = try await accessToken(for: user)
    let body = try JSONEncoder().encode(["upToSequence": sequence])
    let response = await service.handle(
      APIRequest(
        method: "POST", path: "/v1/conversations/\(conversation)/read",
        headers: ["authorization": "Bearer \(token)", "content-type": "application/json"],
        body: Array(body)))
    guard response.status == 204 else { throw ServerLogError(status: response.status) }
  }

  private func accessToken(for user: String) async throws -> String {
    let body = try JSONEncoder().encode(["userId": user, "deviceId": "test-observer"])
    let response = await service.handle(
      APIRequest(
        method: "POST", path: "/v1/auth/dev-login", headers: ["content-type": "application/json"],
        body: Array(body)))
    struct Tokens: Decodable { let accessToken: String }
    guard response.status == 200 else { throw ServerLogError(status: response.status) }
    return try JSONDecoder().decode(Tokens.self, from: Data(response.body)).accessToken
  }
}

public struct ServerLogError: Error {
  public let status: Int
}
