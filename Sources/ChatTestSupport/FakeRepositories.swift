import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// The screens' promises (`ChatSources`) kept by one object whose streams the test drives and
/// whose calls the test reads: what the view models are tested against (seed 000 §6.3).
public final class FakeMessageRepository: MessageRepository, ConversationListRepository,
  TypingIndicators, ConnectionStatus, OutboxRepository, Sendable
{
  private struct Calls {
    var sent: [String] = []
    var retried: [MessageID] = []
    var discarded: [MessageID] = []
    var edited: [(MessageID, String)] = []
    var deleted: [MessageID] = []
    var reacted: [Reacted] = []
    /// Each pin asked for: the message, and whether it was an unpin.
    var pinned: [(MessageID, Bool)] = []
    var drafts: [MessageDraft] = []
    var replies: [Reply] = []
    var openedAt: [Int?] = []
    var markedRead: [Int] = []
    var typing = 0
    var older = 0
    var sendError: ChatError?
    var olderGate: AsyncStream<Void>?
    var olderAnswers: [Result<Bool, ChatError>] = []
  }

  public let currentUserID: UserID
  private let messagesPair = AsyncStream.makeStream(of: [Message].self)
  private let summaryPair = AsyncStream.makeStream(of: ConversationSummary?.self)
  private let typingPair = AsyncStream.makeStream(of: [UserID].self)
  private let connectionPair = AsyncStream.makeStream(of: ConnectionState.self)
  private let outboxPair = AsyncStream.makeStream(of: [OutboxEntry].self)
  private let calls = Locked(Calls())

  public init(currentUserID: UserID) {
    self.currentUserID = currentUserID
  }

  /// The fake as every promise a screen reads.
  public var sources: ChatSources {
    ChatSources(
      me: currentUserID, messages: self, conversations: self, typing: self, connection: self,
      outbox: self)
  }

  /// What `send`, `edit` and `delete` throw, if anything.
  public var sendError: ChatError? {
    get { calls.withLock { $0.sendError } }
    set { calls.withLock { $0.sendError = newValue } }
  }
  /// When set, `loadOlder` waits here until the test resumes it (to see the loading state).
  public var olderGate: AsyncStream<Void>? {
    get { calls.withLock { $0.olderGate } }
    set { calls.withLock { $0.olderGate = newValue } }
  }
  /// What `loadOlder` answers, in order.
  public var olderAnswers: [Result<Bool, ChatError>] {
    get { calls.withLock { $0.olderAnswers } }
    set { calls.withLock { $0.olderAnswers = newValue } }
  }

  // Driving the streams.
  public func emit(_ messages: [Message]) { messagesPair.continuation.yield(messages) }
  public func emit(_ summary: ConversationSummary?) { summaryPair.continuation.yield(summary) }
  public func emitTyping(_ users: [UserID]) { typingPair.continuation.yield(users) }
  public func emit(_ state: ConnectionState) { connectionPair.continuation.yield(state) }

  // Reading the calls.
  public var sent: [String] { calls.withLock { $0.sent } }
  public var retried: [MessageID] { calls.withLock { $0.retried } }
  public var edited: [(MessageID, String)] { calls.withLock { $0.edited } }
  public var deleted: [MessageID] { calls.withLock { $0.deleted } }
  /// A reaction a screen asked for.
  public struct Reacted: Sendable, Equatable {
    public var emoji: String
    public var target: MessageID
    public var remove: Bool

    public init(emoji: String, target: MessageID, remove: Bool) {
      self.emoji = emoji
      self.target = target
      self.remove = remove
    }
  }
  public var reacted: [Reacted] { calls.withLock { $0.reacted } }
  /// Each pin a screen asked for: the message, and whether it was an unpin.
  public var pinned: [(MessageID, Bool)] { calls.withLock { $0.pinned } }
  /// Each draft a screen saved.
  public var drafts: [MessageDraft] { calls.withLock { $0.drafts } }
  /// A reply a screen sent.
  public struct Reply: Sendable, Equatable {
    public var text: String
    public var target: MessageID

    public init(text: String, target: MessageID) {
      self.text = text
      self.target = target
    }
  }
  public var replies: [Reply] { calls.withLock { $0.replies } }
  /// Each `open(at:)` asked for; nil for each `showNewest`.
  public var openedAt: [Int?] { calls.withLock { $0.openedAt } }
  public var markedRead: [Int] { calls.withLock { $0.markedRead } }
  public var typingCalls: Int { calls.withLock { $0.typing } }
  public var olderCalls: Int { calls.withLock { $0.older } }

  // MessageRepository.
  public func messages(in conversation: ConversationID) -> AsyncStream<[Message]> {
    messagesPair.stream
  }

  public func send(_ text: String, in conversation: ConversationID) async throws(ChatError)
    -> MessageID
  {
    if let error = sendError { throw error }
    calls.withLock { $0.sent.append(text) }
    return MessageID(UUID())
  }

  public func edit(_ id: MessageID, in conversation: ConversationID, to text: String)
    async throws(ChatError)
  {
    if let error = sendError { throw error }
    calls.withLock { $0.edited.append((id, text)) }
  }

  public func delete(_ id: MessageID, in conversation: ConversationID) async throws(ChatError) {
    if let error = sendError { throw error }
    calls.withLock { $0.deleted.append(id) }
  }

  @discardableResult
  public func reply(_ text: String, to target: MessageID, in conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    if let error = sendError { throw error }
    calls.withLock { $0.replies.append(Reply(text: text, target: target)) }
    return MessageID(rawValue: UUID().uuidString.lowercased())!
  }

  public func forward(
    _ message: MessageID, from source: ConversationID, to conversation: ConversationID
  ) async throws(ChatError) -> MessageID {
    if let error = sendError { throw error }
    return MessageID(rawValue: UUID().uuidString.lowercased())!
  }

  public func react(
    _ emoji: String, to target: MessageID, in conversation: ConversationID, remove: Bool
  ) async throws(ChatError) {
    if let error = sendError { throw error }
    calls.withLock { $0.reacted.append(Reacted(emoji: emoji, target: target, remove: remove)) }
  }

  public func saveDraft(_ text: String, replyTo: MessageID?, in conversation: ConversationID)
    async throws(ChatError)
  {
    calls.withLock { $0.drafts.append(MessageDraft(text: text, replyTo: replyTo)) }
  }

  public func pin(_ target: MessageID, in conversation: ConversationID, remove: Bool)
    async throws(ChatError)
  {
    if let error = sendError { throw error }
    calls.withLock { $0.pinned.append((target, remove)) }
  }

  public func open(at sequence: Int, in conversation: ConversationID) async throws(ChatError) {
    if let error = sendError { throw error }
    calls.withLock { $0.openedAt.append(sequence) }
  }

  public func showNewest(in conversation: ConversationID) async {
    calls.withLock { $0.openedAt.append(nil) }
  }

  public func retry(_ id: MessageID) async {
    calls.withLock { $0.retried.append(id) }
  }

  public func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    let gate = calls.withLock {
      $0.older += 1
      return $0.olderGate
    }
    if let gate { for await _ in gate { break } }
    let answer = calls.withLock {
      $0.olderAnswers.isEmpty ? .success(false) : $0.olderAnswers.removeFirst()
    }
    return try answer.get()
  }

  public func markRead(upTo sequence: Int, in conversation: ConversationID) {
    calls.withLock { $0.markedRead.append(sequence) }
  }

  // ConversationListRepository: one conversation, driven by `emit(_:)`.
  public func conversations() -> AsyncStream<[ConversationSummary]> {
    AsyncStream { _ in }
  }

  public func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?> {
    summaryPair.stream
  }

  public func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID
  {
    throw .invalidInput("the fake creates no conversation")
  }

  public func changeMembers(in conversation: ConversationID, add: [UserID], remove: [UserID])
    async throws(ChatError)
  {
    throw .invalidInput("the fake changes no members")
  }

  public func rename(_ conversation: ConversationID, to title: String) async throws(ChatError) {
    throw .invalidInput("the fake renames nothing")
  }

  public func mute(_ conversation: ConversationID, until: Date?, mentionsPush: Bool)
    async throws(ChatError)
  {
    throw .invalidInput("the fake mutes nothing")
  }

  public func search(_ query: String, limit: Int) async throws(ChatError) -> LocalSearch {
    LocalSearch(hits: [], mayBeIncomplete: false)
  }

  public func searchServer(_ query: String, limit: Int, before: String?) async throws(ChatError)
    -> ServerSearch
  {
    ServerSearch(hits: [], nextCursor: nil)
  }

  // TypingIndicators.
  public func typingUsers(in conversation: ConversationID) -> AsyncStream<[UserID]> {
    typingPair.stream
  }

  public func userIsTyping(in conversation: ConversationID) {
    calls.withLock { $0.typing += 1 }
  }

  // ConnectionStatus.
  public func connectionStates() -> AsyncStream<ConnectionState> {
    connectionPair.stream
  }

  // OutboxRepository.
  /// Sends the outbox's rows to the screen.
  public func yieldOutbox(_ entries: [OutboxEntry]) {
    outboxPair.continuation.yield(entries)
  }

  public func entries() -> AsyncStream<[OutboxEntry]> {
    outboxPair.stream
  }

  public func retry(_ id: MessageID?) async {
    if let id { await retry(id) }
  }

  public func discard(_ id: MessageID) async throws(ChatError) {
    calls.withLock { $0.discarded.append(id) }
  }

  /// The IDs `discard` was called with.
  public var discarded: [MessageID] { calls.withLock { $0.discarded } }
}
