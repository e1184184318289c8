import ChatAPI
import ChatIdentifiers
import Support

extension ChatService {
  /// `GET /v1/conversations/{id}/messages?before=|after=|around=&limit=`.
  func listMessages(
    in rawConversation: String, _ request: APIRequest, for caller: String
  ) async throws -> APIResponse {
    let conversation = try Self.conversationID(rawConversation)
    let query = MessageQuery(
      before: try QueryParameters.integer("before", in: request.query),
      after: try QueryParameters.integer("after", in: request.query),
      around: try QueryParameters.integer("around", in: request.query),
      limit: try QueryParameters.integer("limit", in: request.query) ?? APILimits.defaultPageSize)
    let page = try await admittingCatchUp {
      try await store.messages(in: conversation, visibleTo: caller, query: query)
    }
    return .json(200, page)
  }

  /// `POST /v1/conversations/{id}/messages`: 201 with the new item (a message, or with `kind`
  /// an edit or delete of `target`); 200 with the stored one when the same sender posts the
  /// same clientMessageId and body again (a retry); 409 when the body differs. A new item goes
  /// live to every member's devices, followed by the sender's raised receipt numbers.
  func sendMessage(
    to rawConversation: String, _ request: APIRequest, from sender: String, at now: Timestamp
  ) async throws -> APIResponse {
    let body = try RequestBody(request.body)
    try body.refuseLongText(in: "A message")
    let conversation = try Self.conversationID(rawConversation)
    let post = try body.decode(PostItem.self)
    guard let clientMessageKey = MessageID(rawValue: post.clientMessageId)?.rawValue else {
      throw ServiceError.badRequest("clientMessageId must be a UUID.")
    }
    let kind = post.kind ?? .message
    var target: (id: String, key: String)?
    var replyTo: (id: String, key: String)?
    var forwardOf: (conversationId: String, key: String)?
    switch kind {
    case .message:
      guard post.target == nil else { throw ServiceError.badRequest("A message has no target.") }
      if let source = post.forwardOf {
        guard post.text == nil || post.text == "", post.media == nil, post.replyTo == nil else {
          throw ServiceError.badRequest(
            "A forward carries forwardOf instead of text, media and replyTo.")
        }
        guard let key = MessageID(rawValue: source.clientMessageId)?.rawValue else {
          throw ServiceError.badRequest(
            "forwardOf.clientMessageId must be the clientMessageId (a UUID) of the message.")
        }
        forwardOf = (try Self.conversationID(source.conversationId), key)
      }
      if let media = post.media { try Self.checkShape(of: media) }
      if let id = post.replyTo {
        guard let key = MessageID(rawValue: id)?.rawValue else {
          throw ServiceError.badRequest(
            "replyTo must be the clientMessageId (a UUID) of the message answered.")
        }
        replyTo = (id, key)
      }
    case .edit, .delete:
      guard post.media == nil else {
        throw ServiceError.badRequest("Only a message carries media.")
      }
      guard let id = post.target, let key = MessageID(rawValue: id)?.rawValue else {
        throw ServiceError.badRequest(
          "target must be the clientMessageId (a UUID) of the message to change.")
      }
      target = (id, key)
    case .reaction:
      guard post.media == nil else {
        throw ServiceError.badRequest("Only a message carries media.")
      }
      guard let id = post.target, let key = MessageID(rawValue: id)?.rawValue else {
        throw ServiceError.badRequest(
          "target must be the clientMessageId (a UUID) of the message to react to.")
      }
      // Whether it is one emoji is the store's 422, after membership (API.md's precedence).
      guard post.emoji != nil else {
        throw ServiceError.badRequest("A reaction needs emoji: one emoji, as a string.")
      }
      target = (id, key)
    case .pin:
      guard post.media == nil else {
        throw ServiceError.badRequest("Only a message carries media.")
      }
      guard let id = post.target, let key = MessageID(rawValue: id)?.rawValue else {
        throw ServiceError.badRequest(
          "target must be the clientMessageId (a UUID) of the message to pin.")
      }
      target = (id, key)
    case .members, .title:
      throw ServiceError.badRequest(
        "kind must be message, edit, delete, reaction or pin: members and title have routes "
          + "of their own.")
    }
    guard kind == .reaction || post.emoji == nil else {
      throw ServiceError.badRequest("Only a reaction has emoji.")
    }
    guard [.reaction, .pin].contains(kind) || post.remove == nil else {
      throw ServiceError.badRequest("Only a reaction or a pin has remove.")
    }
    guard kind == .message || post.replyTo == nil else {
      throw ServiceError.badRequest("Only a message replies to another.")
    }
    guard kind == .message || post.forwardOf == nil else {
      throw ServiceError.badRequest("Only a message is forwarded.")
    }
    let text: String
    if [.delete, .reaction, .pin].contains(kind) || forwardOf != nil {
      guard post.text == nil || post.text == "" else {
        throw ServiceError.badRequest("A \(kind.rawValue) has no text.")
      }
      text = ""
    } else {
      guard let given = post.text else { throw ServiceError.badRequest("text must be a string.") }
      text = given
    }
    // Pushes are queued in the message's own transaction (nil: none, pushes are off).
    let push = kind == .message ? await pushes?.queueRequest() : nil
    let outcome = try await store.send(
      NewMessage(
        id: random.uuidString(), conversationId: conversation, senderId: sender,
        clientMessageId: post.clientMessageId, clientMessageKey: clientMessageKey, text: text,
        sentAt: now, kind: kind, target: target,
        media: post.media.map { media in
          var media = media
          media.key = media.key.lowercased()
          media.sha256 = media.sha256.lowercased()
          return media
        }, emoji: post.emoji, remove: post.remove ?? false, replyTo: replyTo, push: push,
        knownBugs: configuration.knownBugs,
        forwardOf: forwardOf))
    let message = outcome.message
    if let key = outcome.droppedMediaKey { await dropMedia(key) }
    guard outcome.isNew else {
      metrics.retriesRecognised += 1
      return .json(200, message)
    }
    metrics.sendsAccepted += 1
    await pushes?.queued(outcome.pushes)
    var recipients = outcome.memberIds
    if configuration.knownBugs.contains(.deliverToRemovedMembers) {
      recipients = try await store.everMemberIds(of: conversation)
    }
    // A reply's quote goes only to who can see what it answers; the others get it null.
    let unquoted = Set(outcome.quoteHiddenFrom)
    if unquoted.isEmpty {
      publish(.message(conversationId: conversation, message: message), to: recipients)
    } else {
      var hidden = message
      hidden.replyTo?.quote = nil
      publish(
        .message(conversationId: conversation, message: message),
        to: recipients.filter { !unquoted.contains($0) })
      publish(
        .message(conversationId: conversation, message: hidden),
        to: recipients.filter { unquoted.contains($0) })
    }
    await publishReceipt(
      MemberReceipts(userId: sender, deliveredUpTo: message.sequence, readUpTo: message.sequence),
      in: conversation, to: outcome.memberIds)
    return .json(201, message)
  }

  /// The lowercase form of a conversation id from a path; a 400 when it is not a UUID.
  static func conversationID(_ raw: String) throws(ServiceError) -> String {
    guard let id = ConversationID(serverIssued: raw) else {
      throw ServiceError.badRequest("The conversation id is malformed.")
    }
    return id.rawValue
  }
}
