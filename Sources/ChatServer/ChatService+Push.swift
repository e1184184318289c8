import ChatAPI
import Support

/// Push nudges (API.md Part 2): the routes that keep a token per device, and the service's
/// side of the `PushDispatcher`. A push is owed to every other member's device with a token and
/// no open socket when a message is stored (queued in the message's own transaction, so it
/// survives a restart), collapsed per conversation and device; the dispatcher hands it to the
/// `PushGateway` with retries.
extension ChatService {
  /// API.md leaves tokens opaque; this bounds what a device may store.
  static let maxPushTokenBytes = 4_096

  /// `PUT /v1/devices/me/push`: 204.
  func registerPush(_ request: APIRequest, for caller: AccessTokenClaims)
    async throws -> APIResponse
  {
    let body = try RequestBody(request.body)
    guard case .string(let provider)? = body["provider"] else {
      throw ServiceError.badRequest("provider must be a string: apns, fcm or webhook.")
    }
    guard case .string(let token)? = body["token"] else {
      throw ServiceError.badRequest("token must be a string.")
    }
    guard let provider = PushProvider(rawValue: provider) else {
      throw ServiceError.invalid("provider must be apns, fcm or webhook.")
    }
    guard !token.isEmpty, token.utf8.count <= Self.maxPushTokenBytes else {
      throw ServiceError.invalid("token must hold 1 to \(Self.maxPushTokenBytes) bytes.")
    }
    try await store.registerPush(
      PushRegistration(provider: provider, token: token), for: caller.device)
    return .noContent
  }

  /// `DELETE /v1/devices/me/push`: 204, also when the device had no token.
  func removePush(for caller: AccessTokenClaims) async throws -> APIResponse {
    try await store.removePush(for: caller.device)
    return .noContent
  }

  /// Starts the dispatcher on pushes owed from before (a restart): call once at start.
  public func startPushes() async {
    await pushes?.start()
  }

  /// Hands nothing more to the gateway and returns when every delivery in flight has its
  /// result saved (each is bounded by the gateway's own timeout). What is still owed stays
  /// queued for the next start.
  public func stopPushes() async {
    await pushes?.stop()
  }
}
