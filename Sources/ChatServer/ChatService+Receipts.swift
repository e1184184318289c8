import ChatAPI

extension ChatService {
  /// `GET /v1/conversations/{id}/receipts`.
  func receipts(in rawConversation: String, for caller: String) async throws(ServiceError)
    -> APIResponse
  {
    let conversation = try Self.conversationID(rawConversation)
    let snapshot = try await store.receipts(in: conversation, visibleTo: caller)
    return .json(200, snapshot.response(for: caller))
  }

  /// `POST /v1/conversations/{id}/delivered` and `…/read`: 204; a rise goes live to every
  /// member's devices.
  func raiseReceipt(
    _ kind: ReceiptKind, in rawConversation: String, _ request: APIRequest, by caller: String
  ) async throws(ServiceError) -> APIResponse {
    let body = try RequestBody(request.body)
    let conversation = try Self.conversationID(rawConversation)
    let sequence = try body.decode(UpTo.self).upToSequence
    let outcome = try await store.raiseReceipt(kind, in: conversation, by: caller, upTo: sequence)
    if let raised = outcome.raised {
      publish(.receipt(conversationId: conversation, raised), to: outcome.memberIds)
    }
    return .noContent
  }
}
