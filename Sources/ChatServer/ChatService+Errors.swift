import ChatAPI

extension ChatService {
  /// The error middleware (Vapor's `ErrorMiddleware`): every failure a route throws, as API.md
  /// says it. The one place a `StoreError` becomes a status, a code and a message; a route's
  /// own `ServiceError` passes as it is; anything else is a 500 whose detail goes to the log.
  ///
  /// The store's refusals keep the words API.md and the contract suite expect: not a member
  /// and no such conversation are one 404, so membership does not leak.
  static func failure(for error: any Error) -> ServiceError {
    switch error {
    case let refusal as ServiceError: refusal
    case let store as StoreError:
      switch store {
      case .notAMember: .unknownConversation
      case .formerMember: .formerMember
      case .keyReused:
        ServiceError(.conflict, "This clientMessageId was already sent with another body.")
      case .invalid(let reason): .invalid(reason)
      case .notAllowed(let reason): ServiceError(.forbidden, reason)
      case .malformed(let reason): .badRequest(reason)
      case .unknownToken: .unauthorized
      case .unreachable: .unavailable("The database cannot be reached; try again.")
      case .collidedTooOften(let sqlState):
        .unavailable("The write collided with others too often: \(sqlState)")
      case .commitFailed(let reason): .unavailable("group commit failed: \(reason)")
      case .internal(let reason): .internal(reason)
      }
    default: .internal(String(describing: error))
    }
  }
}
