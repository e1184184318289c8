extension ChatService {
  /// `GET /v1/conversations/{id}/receipts`.
  func receipts(in rawConversation: String, for caller: String) async throws(APIError)
    -> APIResponse
  {
    let conversation = try Self.conversationID(rawConversation)
    let snapshot = try await store.receipts(in: conversation, visibleTo: caller)
    return .json(200, snapshot.json(for: caller))
  }

  /// `POST /v1/conversations/{id}/delivered` and `…/read`: 204; a rise goes live to every
  /// member's devices.
  func raiseReceipt(
    _ kind: ReceiptKind, in rawConversation: String, _ request: APIRequest, by caller: String
  ) async throws(APIError) -> APIResponse {
    let body = try RequestBody(request.body)
    let conversation = try Self.conversationID(rawConversation)
    let sequence = try body.integer("upToSequence")
    let outcome = try await store.raiseReceipt(kind, in: conversation, by: caller, upTo: sequence)
    if let raised = outcome.raised {
      publish(LiveEvents.receipt(in: conversation, raised), to: outcome.memberIds)
    }
    return .noContent
  }
}
