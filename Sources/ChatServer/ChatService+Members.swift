import ChatAPI
import ChatIdentifiers
import Support

extension ChatService {
  /// `POST /v1/conversations/{id}/members`: 201 with the `members` item; 200 for a retry. The
  /// added members' sockets hear of the conversation first (a `conversation` event as they see
  /// it), then every member's, the removed ones' included, get the item; the removed hear
  /// nothing more of it.
  func changeMembers(
    of rawConversation: String, _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws -> APIResponse {
    let conversation = try Self.conversationID(rawConversation)
    let body = try RequestBody(request.body).decode(ChangeMembers.self)
    let add = Set(body.add ?? []).sorted()
    let remove = Set(body.remove ?? []).sorted()
    guard (add + remove).allSatisfy({ UserID(rawValue: $0) != nil }) else {
      throw ServiceError.badRequest(
        "add and remove must hold user ids: 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    guard Set(add).isDisjoint(with: remove) else {
      throw ServiceError.badRequest("A user cannot be both added and removed.")
    }
    let outcome = try await change(
      .members(add: add, remove: remove), clientMessageId: body.clientMessageId,
      in: conversation, by: caller, at: now)
    for (user, view) in zip(outcome.added, outcome.addedViews) {
      publish(.conversation(view), to: [user])
    }
    return try await announce(outcome, in: conversation, by: caller)
  }

  /// `PATCH /v1/conversations/{id}`: 201 with the `title` item; 200 for a retry.
  func changeTitle(
    of rawConversation: String, _ request: APIRequest, by caller: String, at now: Timestamp
  ) async throws -> APIResponse {
    let conversation = try Self.conversationID(rawConversation)
    let body = try RequestBody(request.body).decode(ChangeTitle.self)
    let outcome = try await change(
      .title(body.title), clientMessageId: body.clientMessageId, in: conversation, by: caller,
      at: now)
    return try await announce(outcome, in: conversation, by: caller)
  }

  /// `PUT /v1/conversations/{id}/mute`: `until` a time, `forever`, or null (unmute), and
  /// Part 3's `mentions` (`push` when left out, or `silent`); 204. The caller's own sockets
  /// hear the conversation as it now sees it.
  func mute(
    _ rawConversation: String, _ request: APIRequest, by caller: String
  ) async throws -> APIResponse {
    let conversation = try Self.conversationID(rawConversation)
    let body = try RequestBody(request.body)
    var until: String?
    switch body["until"] {
    case .null?:
      until = nil
    case .string("forever")?:
      until = "forever"
    case .string(let text)?:
      guard let time = Timestamp(rfc3339: text) else {
        throw ServiceError.badRequest("until must be an RFC 3339 time, \"forever\" or null.")
      }
      until = time.rfc3339
    default:
      throw ServiceError.badRequest("until must be an RFC 3339 time, \"forever\" or null.")
    }
    var mentions = MentionPushes.push
    let badMentions = ServiceError.badRequest("mentions must be \"push\" or \"silent\".")
    switch body["mentions"] {
    case nil:
      break
    case .string(let text)?:
      guard let option = MentionPushes(rawValue: text) else { throw badMentions }
      mentions = option
    default:
      throw badMentions
    }
    if let seen = try await store.mute(
      conversation, for: caller, until: until, mentions: mentions)
    {
      publish(.conversation(seen), to: [caller])
    }
    return APIResponse(status: 204)
  }

  private func change(
    _ change: NewChange.Change, clientMessageId: String, in conversation: String,
    by caller: String, at now: Timestamp
  ) async throws -> ChangeOutcome {
    guard let key = MessageID(rawValue: clientMessageId)?.rawValue else {
      throw ServiceError.badRequest("clientMessageId must be a UUID.")
    }
    return try await store.change(
      NewChange(
        id: random.uuidString(), conversationId: conversation, senderId: caller,
        clientMessageId: clientMessageId, clientMessageKey: key, change: change, sentAt: now))
  }

  /// Answers a change and, when it is new, sends its item live to the members after it and to
  /// those it removed (their last frame of this conversation), then the sender's raised
  /// numbers to the members.
  private func announce(
    _ outcome: ChangeOutcome, in conversation: String, by caller: String
  ) async throws -> APIResponse {
    guard outcome.isNew else {
      metrics.retriesRecognised += 1
      return .json(200, outcome.item)
    }
    let sequence = outcome.item.sequence
    publish(
      .message(conversationId: conversation, message: outcome.item),
      to: Set(outcome.memberIds).union(outcome.removed).sorted())
    await publishReceipt(
      MemberReceipts(userId: caller, deliveredUpTo: sequence, readUpTo: sequence),
      in: conversation, to: outcome.memberIds)
    return .json(201, outcome.item)
  }
}
