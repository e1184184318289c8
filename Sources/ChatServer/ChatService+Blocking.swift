import ChatAPI
import ChatIdentifiers
import Support

extension ChatService {
  /// `GET /v1/users/me/blocked` (API.md Part 3): the caller's block list, sorted.
  func blockedUsers(of caller: String) async throws -> APIResponse {
    .json(200, BlockedUsers(userIds: try await store.blocked(by: caller)))
  }

  /// `PUT` / `DELETE /v1/users/me/blocked/{userId}`: 204 (the same when it changes nothing).
  /// The caller's own sockets hear the whole list.
  func setBlocked(_ rawUser: String, by caller: String, block: Bool) async throws -> APIResponse {
    guard let user = UserID(rawValue: rawUser)?.rawValue else {
      throw ServiceError.badRequest("The user id is malformed.")
    }
    guard user != caller else { throw ServiceError.invalid("You cannot block yourself.") }
    let list = try await store.setBlocked(user, by: caller, block: block)
    publish(.blocked(userIds: list), to: [caller])
    return APIResponse(status: 204)
  }
}
