import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// Owns messages (seed 000 part 5): `GET` and `POST` messages and the socket's message events,
/// all saved to the store. One shared instance per engine, so a send outlives the screen that
/// started it.
///
/// The seed's front door, with the work in two parts of one job each: receiving, catch-up, gap
/// fill and history in `CatchUp`; sending in `Outbox`. Here: what a screen or the socket asks
/// for, checked and passed to the part that does it.
actor MessagesRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  let catchUp: CatchUp
  let outbox: Outbox
  /// Told about a message event for a conversation this device does not know yet.
  private let onUnknownConversation: @Sendable () async -> Void

  init(
    context: EngineContext, catchUp: CatchUp, outbox: Outbox,
    onUnknownConversation: @escaping @Sendable () async -> Void
  ) {
    self.context = context
    self.catchUp = catchUp
    self.outbox = outbox
    self.onUnknownConversation = onUnknownConversation
  }

  private var store: MessageStore { context.store }

  // MARK: - Lifecycle

  /// The app came to the foreground: catch-ups may retry, the outbox may post.
  func start() async {
    await catchUp.start()
    await outbox.start()
  }

  /// The app is going away: no new post or fetch starts. A post in flight finishes and its
  /// answer is saved; what is left stays queued.
  func stop() async {
    await outbox.stop()
    await catchUp.stop()
  }

  // MARK: - Receiving

  /// A message event from the socket.
  func receive(_ item: Item) async {
    guard let record = MessageRecord(item) else {
      context.log.write(LogRecord(.warning, "live.unreadable_message"))
      return
    }
    if await isUnknown(record.conversationID) {
      // Learn about the conversation without holding up the socket's next frames.
      let onUnknownConversation = onUnknownConversation
      context.spawn { await onUnknownConversation() }
    }
    await catchUp.save([record], in: record.conversationID)
  }

  /// Whether this device has never heard of the conversation. A store that cannot be read
  /// answers no (logged): the message is saved anyway, and the next `/v1/sync` brings the
  /// conversation.
  private func isUnknown(_ conversation: ConversationID) async -> Bool {
    do {
      return try await store.conversation(conversation) == nil
    } catch {
      context.log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return false
    }
  }

  // MARK: - Sending

  /// Saves the message as sending (on screen at once), then lets the outbox post it.
  func send(_ text: String, in conversation: ConversationID) async throws(ChatError) -> MessageID {
    try Self.check(text)
    let record = newMessage(text, in: conversation)
    try await save(record)
    return record.clientID
  }

  /// My new message, sending, sent now: with client ID `id`, else a new one.
  nonisolated func newMessage(_ text: String, in conversation: ConversationID, id: MessageID? = nil)
    -> MessageRecord
  {
    MessageRecord(
      conversationID: conversation, clientID: id ?? context.ids.next(), senderID: context.me,
      serverID: nil, text: text, sequence: nil, sentAt: context.clock.now().date,
      state: .sending, failure: nil)
  }

  /// Saves my reply to a message of the conversation (anyone's, held here and not deleted), as
  /// `send` does; it quotes that message as this device holds it until the server's copy
  /// comes (API.md Part 3, "Replies").
  func reply(_ text: String, to target: MessageID, in conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    try Self.check(text)
    let answered: MessageRecord?
    do {
      answered = try await store.message(target, in: conversation)
    } catch {
      throw ChatError(error)
    }
    guard let answered else {
      throw .notFound("no message \(target) in conversation \(conversation)")
    }
    guard !answered.isDeleted else { throw .invalidInput("the message was deleted") }
    var record = newMessage(text, in: conversation)
    record.replyTo = target
    try await save(record)
    return record.clientID
  }

  /// Saves my forward of a message held here (anyone's, sent and not deleted) into
  /// `conversation` (API.md Part 3, "Forwarding"), as `send` does: a copy of its text and
  /// media as held now, shown at once; the server makes its own copy of the message's current
  /// state when the forward goes, sharing the media's bytes (nothing is uploaded again).
  func forward(_ message: MessageID, from source: ConversationID, to conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    let original: MessageRecord?
    do {
      original = try await store.message(message, in: source)
    } catch {
      throw ChatError(error)
    }
    guard let original, original.kind == .message else {
      throw .notFound("no message \(message) in conversation \(source)")
    }
    guard !original.isDeleted else { throw .invalidInput("the message was deleted") }
    guard original.sequence != nil else {
      throw .invalidInput("the message is not sent yet; forward it once it is")
    }
    var record = newMessage(original.text, in: conversation)
    record.media = original.media
    record.forwardOf = "\(source.rawValue)/\(message.rawValue)"
    try await save(record)
    return record.clientID
  }

  /// Saves my new message (text, or media with its caption) at the back of the outbox and
  /// lets the outbox post it. Throws when I am no longer a member, or the conversation is not
  /// here.
  func save(_ record: MessageRecord) async throws(ChatError) {
    let conversation = record.conversationID
    do {
      switch try await store.insertPending(record, queuedAt: context.sendClock.now()) {
      case .member?: break
      case .removed?: throw ChatError.invalidInput("you were removed from this conversation")
      case .left?: throw ChatError.invalidInput("you left this conversation")
      case nil: throw ChatError.notFound("conversation \(conversation)")
      }
    } catch {
      throw ChatError(error)
    }
    await context.metrics.recordSaved(record.clientID, at: context.clock.uptime())
    context.log.write(LogRecord(.info, "send.saved", [("conversation", "\(conversation)")]))
    await outbox.enqueued(in: conversation)
  }

  /// Refuses a caption the server would refuse: too long (a caption may be empty).
  static func check(caption: String) throws(ChatError) {
    let scalars = caption.unicodeScalars.count
    guard scalars <= APILimits.maxTextScalars else {
      throw .invalidInput(
        "the caption is too long (\(scalars) characters, at most \(APILimits.maxTextScalars))")
    }
  }

  /// Refuses a text the server would refuse: empty (only white space) or too long.
  private static func check(_ text: String) throws(ChatError) {
    let scalars = text.unicodeScalars.count
    guard !text.allSatisfy({ $0.isWhitespace }) else {
      throw .invalidInput("the message is empty")
    }
    guard scalars <= APILimits.maxTextScalars else {
      throw .invalidInput(
        "the message is too long (\(scalars) characters, at most \(APILimits.maxTextScalars))")
    }
  }

  /// Edits my message (API.md Part 2): changed in place while its post has not started, else
  /// shown at once and queued behind it.
  func edit(_ id: MessageID, in conversation: ConversationID, to text: String)
    async throws(ChatError)
  {
    try Self.check(text)
    let editID = context.ids.next()
    let outcome: LocalChangeOutcome
    do {
      outcome = try await store.editOwn(
        id, in: conversation, sender: context.me, text: text, id: editID,
        at: context.clock.now().date)
    } catch {
      throw ChatError(error)
    }
    try await changed(id, in: conversation, outcome: outcome, event: "edit")
  }

  /// Deletes my message for everyone: an unsent one never reaches the server; otherwise it is
  /// a tombstone here at once and the delete is queued behind it.
  func delete(_ id: MessageID, in conversation: ConversationID) async throws(ChatError) {
    let outcome: LocalChangeOutcome
    do {
      outcome = try await store.deleteOwn(
        id, in: conversation, sender: context.me, id: context.ids.next(),
        at: context.clock.now().date)
    } catch {
      throw ChatError(error)
    }
    try await changed(id, in: conversation, outcome: outcome, event: "delete")
  }

  /// Adds my reaction to a message of the conversation, or takes it back (API.md Part 3):
  /// shown at once, queued in the conversation's order; toggled again before its post starts,
  /// it is cancelled in place. Throws for something that is not one emoji, a message not here
  /// or deleted, or a conversation I left.
  func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, remove: Bool
  ) async throws(ChatError) {
    guard Reactions.isEmoji(emoji) else {
      throw .invalidInput("a reaction is one emoji (at most \(Reactions.maxEmojiBytes) bytes)")
    }
    let outcome: LocalChangeOutcome
    do {
      outcome = try await store.react(
        emoji, to: target, in: conversation, sender: context.me, remove: remove,
        id: context.ids.next(), at: context.clock.now().date)
    } catch {
      throw ChatError(error)
    }
    if outcome == .notFound {
      throw .notFound("no message \(target) in conversation \(conversation)")
    }
    try await changed(target, in: conversation, outcome: outcome, event: "react")
  }

  /// Pins a message of the conversation (anyone's), or unpins it (API.md Part 3): the pinned
  /// bar shows it at once, and the pin is queued in the conversation's order; undone before
  /// its post starts, it is cancelled in place. Throws for a message not here or deleted, a
  /// conversation I left, or an eleventh pin.
  func pin(_ target: MessageID, in conversation: ConversationID, remove: Bool)
    async throws(ChatError)
  {
    let outcome: LocalChangeOutcome
    do {
      outcome = try await store.pin(
        target, in: conversation, sender: context.me, remove: remove, id: context.ids.next(),
        at: context.clock.now().date)
    } catch {
      throw ChatError(error)
    }
    if outcome == .notFound {
      throw .notFound("no message \(target) in conversation \(conversation)")
    }
    try await changed(target, in: conversation, outcome: outcome, event: "pin")
  }

  /// Discards my held message (`OutboxRepository.discard`): see `MessagesTable.discardHeld`;
  /// any other message of mine is deleted as `delete` does.
  func discard(_ id: MessageID, in conversation: ConversationID) async throws(ChatError) {
    let outcome: LocalChangeOutcome
    do {
      outcome = try await store.discardHeld(
        id, in: conversation, sender: context.me, id: context.ids.next(),
        at: context.clock.now().date, queuedAt: context.sendClock.now())
    } catch {
      throw ChatError(error)
    }
    guard outcome != .notFound else { return try await delete(id, in: conversation) }
    try await changed(id, in: conversation, outcome: outcome, event: "discard")
  }

  /// Turns a local change's outcome into an answer, and lets the outbox post a queued one.
  private func changed(
    _ id: MessageID, in conversation: ConversationID, outcome: LocalChangeOutcome,
    event: String
  ) async throws(ChatError) {
    switch outcome {
    case .notFound: throw .notFound("no message \(id) of yours in conversation \(conversation)")
    case .deleted: throw .invalidInput("the message was deleted")
    case .readOnly: throw .invalidInput("you are no longer a member of this conversation")
    case .full:
      throw .invalidInput("a conversation has at most \(APILimits.maxPins) pinned messages")
    case .unchanged: return
    case .inPlace, .queued:
      context.log.write(
        LogRecord(
          .info, "\(event).saved",
          [("conversation", "\(conversation)"), ("queued", "\(outcome == .queued)")]))
      if outcome == .queued { await outbox.enqueued(in: conversation) }
    }
  }

  /// A tapped retry: a failed message goes to the back of the queue with the same ID; a stale
  /// one too ("send now": its age starts again). A message still sending is simply given a
  /// chance now.
  func retry(_ id: MessageID) async {
    do {
      if try await store.requeue(id, sender: context.me, queuedAt: context.sendClock.now()) {
        await context.metrics.recordSaved(id, at: context.clock.uptime())
        context.log.write(LogRecord(.info, "send.retry_tapped"))
      }
    } catch {
      context.log.write(LogRecord(.error, "send.retry_failed", [("error", "\(error)")]))
    }
    await outbox.wake()
  }

  // MARK: - Watching and history

  func watch(_ conversation: ConversationID) async {
    await catchUp.watch(conversation)
  }

  func unwatch(_ conversation: ConversationID) async {
    await catchUp.unwatch(conversation)
  }

  func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    try await catchUp.loadOlder(in: conversation)
  }

  func fetch(around sequence: Int, in conversation: ConversationID) async throws(ChatError) {
    _ = try await catchUp.fetch(around: sequence, in: conversation)
  }

  func fetch(before sequence: Int, in conversation: ConversationID) async throws(ChatError)
    -> Bool
  {
    try await catchUp.fetch(before: sequence, in: conversation)
  }
}
