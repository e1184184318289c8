extension ChatService {
  /// `GET /v1/conversations/{id}/messages?before=|after=&limit=`.
  func listMessages(
    in rawConversation: String, _ request: APIRequest, for caller: String
  ) async throws(APIError) -> APIResponse {
    let conversation = try Self.conversationID(rawConversation)
    let query = MessageQuery(
      before: try QueryParameters.integer("before", in: request.query),
      after: try QueryParameters.integer("after", in: request.query),
      limit: try QueryParameters.integer("limit", in: request.query) ?? Limits.defaultPageSize)
    let page = try await store.messages(in: conversation, visibleTo: caller, query: query)
    return .json(200, page.json)
  }

  /// `POST /v1/conversations/{id}/messages`: 201 with the new message; 200 with the stored one
  /// when the same sender sends the same clientMessageId and text again (a retry); 409 when
  /// the text differs. A new message goes live to every member's devices, followed by the
  /// sender's raised receipt numbers.
  func sendMessage(
    to rawConversation: String, _ request: APIRequest, from sender: String, at now: Timestamp
  ) async throws(APIError) -> APIResponse {
    let body = try RequestBody(request.body)
    if case .string(let text)? = body["text"], text.unicodeScalars.count > Limits.maxTextScalars {
      throw .tooLarge("A message holds at most \(Limits.maxTextScalars) Unicode scalars.")
    }
    let conversation = try Self.conversationID(rawConversation)
    let clientMessageId = try body.string("clientMessageId")
    guard let clientMessageKey = Identifiers.canonicalUUID(clientMessageId) else {
      throw .badRequest("clientMessageId must be a UUID.")
    }
    let outcome = try await store.send(
      NewMessage(
        id: random.uuidString(), conversationId: conversation, senderId: sender,
        clientMessageId: clientMessageId, clientMessageKey: clientMessageKey,
        text: try body.string("text"), sentAt: now))
    let message = outcome.message
    guard outcome.isNew else {
      metrics.retriesRecognised += 1
      return .json(200, message.json)
    }
    metrics.sendsAccepted += 1
    publish(LiveEvents.message(message), to: outcome.memberIds)
    publish(
      LiveEvents.receipt(
        in: conversation,
        MemberReceipt(userId: sender, deliveredUpTo: message.sequence, readUpTo: message.sequence)),
      to: outcome.memberIds)
    return .json(201, message.json)
  }

  /// The lowercase form of a conversation id from a path; a 400 when it is not a UUID.
  static func conversationID(_ raw: String) throws(APIError) -> String {
    guard let id = Identifiers.canonicalUUID(raw) else {
      throw .badRequest("The conversation id is malformed.")
    }
    return id
  }
}
