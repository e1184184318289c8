import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// Typing indicators: socket events kept in memory, never stored (seed 000 follow-up).
///
/// Mine are sent at most once every three seconds per conversation. Others' expire five
/// seconds after their last event, or at once when their message arrives.
actor TypingRepository: TypingIndicators {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  static let sendInterval: Duration = .seconds(3)
  static let expiry: Duration = .seconds(5)

  private let sendFrame: @Sendable (String) async -> Bool
  private var lastSent: [ConversationID: Duration] = [:]
  private var typing: [ConversationID: [UserID: Duration]] = [:]
  private var subscribers: [ConversationID: Broadcaster<[UserID]>] = [:]
  private var expiries: [ConversationID: Task<Void, Never>] = [:]

  init(context: EngineContext, sendFrame: @escaping @Sendable (String) async -> Bool) {
    self.context = context
    self.sendFrame = sendFrame
  }

  nonisolated func userIsTyping(in conversation: ConversationID) {
    context.spawn { await self.sendTyping(in: conversation) }
  }

  nonisolated func typingUsers(in conversation: ConversationID) -> AsyncStream<[UserID]> {
    context.forward { await self.subscribe(to: conversation) }
  }

  /// I am typing: at most one frame every three seconds per conversation.
  func sendTyping(in conversation: ConversationID) async {
    let now = context.clock.uptime()
    if let last = lastSent[conversation], now - last < Self.sendInterval { return }
    // Taken before the send suspends, so a second call made meanwhile sends nothing.
    lastSent[conversation] = now
    let frame = ClientFrame.typing(in: conversation.rawValue).text
    if await !sendFrame(frame), lastSent[conversation] == now { lastSent[conversation] = nil }
  }

  /// Someone else is typing.
  func receive(conversationID: String, userID: String) {
    guard let conversation = ConversationID(rawValue: conversationID),
      let user = UserID(rawValue: userID), user != context.me
    else { return }
    let expires = context.clock.uptime() + Self.expiry
    typing[conversation, default: [:]][user] = expires
    publish(conversation)
    // One timer per conversation, re-armed by every event.
    let clock = context.clock
    expiries[conversation]?.cancel()
    expiries[conversation] = context.spawn {
      // `try?`: the only error is the cancellation of a newer event's timer, which replaces it.
      guard (try? await clock.sleep(for: Self.expiry)) != nil else { return }
      await self.expire(conversation)
    }
  }

  /// Their message arrived: they stopped typing.
  func messageArrived(from user: UserID, in conversation: ConversationID) {
    guard typing[conversation]?.removeValue(forKey: user) != nil else { return }
    publish(conversation)
  }

  private func expire(_ conversation: ConversationID) {
    expiries[conversation] = nil
    let now = context.clock.uptime()
    guard let users = typing[conversation] else { return }
    let remaining = users.filter { $0.value > now }
    guard remaining.count != users.count else { return }
    typing[conversation] = remaining.isEmpty ? nil : remaining
    publish(conversation)
  }

  private func current(_ conversation: ConversationID) -> [UserID] {
    (typing[conversation] ?? [:]).keys.sorted()
  }

  private func publish(_ conversation: ConversationID) {
    subscribers[conversation]?.yield(current(conversation))
  }

  /// Who is typing in `conversation`, now and on every change.
  func subscribe(to conversation: ConversationID) -> AsyncStream<[UserID]> {
    let broadcaster =
      subscribers[conversation] ?? Broadcaster<[UserID]>(buffering: .bufferingNewest(1))
    subscribers[conversation] = broadcaster
    return broadcaster.subscribe(initial: current(conversation)) { [weak self] id in
      guard let self else { return }
      self.context.spawn { await self.unsubscribe(id, from: conversation) }
    }
  }

  private func unsubscribe(_ id: Int, from conversation: ConversationID) {
    subscribers[conversation]?.remove(id)
    if subscribers[conversation]?.isEmpty == true { subscribers[conversation] = nil }
  }

  /// Ends every stream and timer (the engine is closing).
  func finishSubscriptions() {
    for conversation in subscribers.keys.sorted() { subscribers[conversation]?.finish() }
    subscribers.removeAll()
    for (_, timer) in expiries { timer.cancel() }
    expiries.removeAll()
  }
}
