extension ChatService {
  /// `POST /v1/conversations`: the caller plus `memberIds` (deduplicated), at most 256.
  func createConversation(
    _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws(APIError) -> APIResponse {
    let body = try RequestBody(request.body)
    let title = try body.optionalString("title") ?? ""
    let requested = try body.stringArray("memberIds")
    guard requested.allSatisfy(Identifiers.isValidUserID) else {
      throw .badRequest(
        "memberIds must hold user ids: 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    let memberIds = Set(requested + [caller]).sorted()
    guard memberIds.count <= Limits.maxMembers else {
      throw .invalid("A conversation holds at most \(Limits.maxMembers) members, you included.")
    }
    let item = try await store.createConversation(
      id: random.uuidString(), title: title, memberIds: memberIds, createdBy: caller, at: now)
    publish(LiveEvents.conversation(item), to: item.memberIds)
    return .json(201, item.createdJSON)
  }

  /// `GET /v1/conversations`: the caller's, newest activity first.
  func listConversations(of caller: String) async throws(APIError) -> APIResponse {
    let (items, _) = try await store.conversations(of: caller, changedAfter: nil)
    return .json(200, .object(["items": .array(items.map(\.json))]))
  }

  /// `GET /v1/sync?cursor=`: the caller's conversations changed since the cursor (all without
  /// one), and the next cursor. A cursor is opaque to clients (today: a change version in
  /// decimal); anything that is not one this server issued is a 400.
  func sync(_ request: APIRequest, for caller: String) async throws(APIError) -> APIResponse {
    var cursor: Int?
    if let text = request.query["cursor"] {
      guard let value = Int(text), value >= 0, String(value) == text else {
        throw .badRequest("cursor is not one this server issued.")
      }
      cursor = value
    }
    let (items, next) = try await store.conversations(of: caller, changedAfter: cursor)
    return .json(
      200, .object(["conversations": .array(items.map(\.json)), "cursor": .string(String(next))]))
  }
}
