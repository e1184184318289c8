import ChatAPI
import ChatIdentifiers
import Support

extension ChatService {
  /// `PUT /v1/conversations/{id}/draft` (API.md Part 3): the caller's whole draft, saved on
  /// `baseVersion`; 200 `{ version, updatedAt }`, or 409 with the server's draft when
  /// `baseVersion` is not its version. The caller's own sockets hear the conversation as it
  /// now sees it (its other devices take the draft from there); nobody else's do.
  func saveDraft(
    _ rawConversation: String, _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws -> APIResponse {
    let body = try RequestBody(request.body)
    try body.refuseLongText(in: "A draft")
    let conversation = try Self.conversationID(rawConversation)
    let draft = try body.decode(SaveDraft.self)
    if let id = draft.replyTo, MessageID(rawValue: id) == nil {
      throw ServiceError.badRequest(
        "replyTo must be the clientMessageId (a UUID) of the message answered, or null.")
    }
    guard draft.baseVersion >= 0 else {
      throw ServiceError.invalid("baseVersion is 0 before the first save, then the last version.")
    }
    switch try await store.saveDraft(
      conversation, for: caller, text: draft.text, replyTo: draft.replyTo,
      baseVersion: draft.baseVersion, at: now)
    {
    case .saved(let saved, let seen):
      if let seen { publish(.conversation(seen), to: [caller]) }
      return .json(200, saved)
    case .conflict(let current):
      return .json(
        409,
        DraftConflict(
          message: "The draft changed on another device: this is the server's.", draft: current))
    }
  }
}
