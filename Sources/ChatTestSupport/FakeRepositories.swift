import ChatDomain
import Foundation
import Observation

/// A `MessageRepository` whose streams the test drives and whose calls the test reads: what the
/// view model is tested against (seed 000 §6.3).
public final class FakeMessageRepository: MessageRepository, @unchecked Sendable {
  // @unchecked: every mutable field is touched only while holding `lock`.
  private let lock = NSLock()
  public let currentUserID: UserID
  private let messagesPair = AsyncStream.makeStream(of: [Message].self)
  private let summaryPair = AsyncStream.makeStream(of: ConversationSummary?.self)
  private let typingPair = AsyncStream.makeStream(of: [UserID].self)
  private let connectionPair = AsyncStream.makeStream(of: ConnectionState.self)
  private var _sent: [String] = []
  private var _retried: [MessageID] = []
  private var _markedRead: [Int] = []
  private var _typingCalls = 0
  /// What `send` throws, if anything.
  public var sendError: ChatError? {
    get { lock.withLock { _sendError } }
    set { lock.withLock { _sendError = newValue } }
  }
  private var _sendError: ChatError?
  /// When set, `loadOlder` waits here until the test resumes it (to see the loading state).
  public var olderGate: AsyncStream<Void>? {
    get { lock.withLock { _olderGate } }
    set { lock.withLock { _olderGate = newValue } }
  }
  private var _olderGate: AsyncStream<Void>?
  private var _olderCalls = 0
  public var olderCalls: Int { lock.withLock { _olderCalls } }
  /// What `loadOlder` answers, in order.
  public var olderAnswers: [Result<Bool, ChatError>] {
    get { lock.withLock { _olderAnswers } }
    set { lock.withLock { _olderAnswers = newValue } }
  }
  private var _olderAnswers: [Result<Bool, ChatError>] = []

  public init(currentUserID: UserID) {
    self.currentUserID = currentUserID
  }

  // Driving the streams.
  public func emit(_ messages: [Message]) { messagesPair.continuation.yield(messages) }
  public func emit(_ summary: ConversationSummary?) { summaryPair.continuation.yield(summary) }
  public func emitTyping(_ users: [UserID]) { typingPair.continuation.yield(users) }
  public func emit(_ state: ConnectionState) { connectionPair.continuation.yield(state) }

  // Reading the calls.
  public var sent: [String] { lock.withLock { _sent } }
  public var retried: [MessageID] { lock.withLock { _retried } }
  public var markedRead: [Int] { lock.withLock { _markedRead } }
  public var typingCalls: Int { lock.withLock { _typingCalls } }

  public func messages(in conversation: ConversationID) -> AsyncStream<[Message]> {
    messagesPair.stream
  }

  public func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?> {
    summaryPair.stream
  }

  public func send(_ text: String, in conversation: ConversationID) async throws(ChatError)
    -> MessageID
  {
    if let error = sendError { throw error }
    lock.withLock { _sent.append(text) }
    return MessageID(UUID())
  }

  public func retry(_ id: MessageID) async {
    lock.withLock { _retried.append(id) }
  }

  public func loadOlder(in conversation: ConversationID) async throws(ChatError) -> Bool {
    let gate = lock.withLock {
      _olderCalls += 1
      return _olderGate
    }
    if let gate { for await _ in gate { break } }
    let answer = lock.withLock {
      _olderAnswers.isEmpty ? .success(false) : _olderAnswers.removeFirst()
    }
    return try answer.get()
  }

  public func markRead(upTo sequence: Int, in conversation: ConversationID) {
    lock.withLock { _markedRead.append(sequence) }
  }

  public func typingUsers(in conversation: ConversationID) -> AsyncStream<[UserID]> {
    typingPair.stream
  }

  public func userIsTyping(in conversation: ConversationID) {
    lock.withLock { _typingCalls += 1 }
  }

  public func connectionStates() -> AsyncStream<ConnectionState> {
    connectionPair.stream
  }
}
