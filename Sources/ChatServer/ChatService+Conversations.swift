import ChatAPI
import Support

extension ChatService {
  /// `POST /v1/conversations`: the caller plus `memberIds` (deduplicated), at most 256.
  func createConversation(
    _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws(ServiceError) -> APIResponse {
    let create = try RequestBody(request.body).decode(CreateConversation.self)
    let title = create.title ?? ""
    let requested = create.memberIds
    guard requested.allSatisfy(Identifiers.isValidUserID) else {
      throw .badRequest(
        "memberIds must hold user ids: 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    let memberIds = Set(requested + [caller]).sorted()
    guard memberIds.count <= APILimits.maxMembers else {
      throw .invalid("A conversation holds at most \(APILimits.maxMembers) members, you included.")
    }
    let item = try await store.createConversation(
      id: random.uuidString(), title: title, memberIds: memberIds, createdBy: caller, at: now)
    publish(.conversation(item), to: item.memberIds)
    return .json(201, CreatedConversation(item))
  }

  /// `GET /v1/conversations`: the caller's, newest activity first.
  func listConversations(of caller: String) async throws(ServiceError) -> APIResponse {
    let (items, _) = try await store.conversations(of: caller, changedAfter: nil)
    return .json(200, ConversationList(items: items))
  }

  /// `GET /v1/sync?cursor=`: the caller's conversations changed since the cursor (all without
  /// one), and the next cursor. A cursor is opaque to clients (today: a change version in
  /// decimal); anything that is not one this server issued is a 400.
  func sync(_ request: APIRequest, for caller: String) async throws(ServiceError) -> APIResponse {
    var cursor: Int?
    if let text = request.query["cursor"] {
      guard let value = Int(text), value >= 0, String(value) == text else {
        throw .badRequest("cursor is not one this server issued.")
      }
      cursor = value
    }
    let (items, next) = try await store.conversations(of: caller, changedAfter: cursor)
    return .json(200, SyncResponse(conversations: items, cursor: String(next)))
  }
}
