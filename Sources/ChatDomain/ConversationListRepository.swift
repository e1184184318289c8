import ChatIdentifiers
import Foundation

/// The conversation list's promise: a second reader of the same database (seed 000 §11).
public protocol ConversationListRepository: Sendable {
  /// My conversations, newest activity first, with unread counts; re-sent on every change.
  func conversations() -> AsyncStream<[ConversationSummary]>

  /// One conversation's title, members and unread count, re-sent on every change; nil while
  /// this device does not know it.
  func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?>

  /// Creates a conversation on the server (this needs the network) and saves it.
  func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
    -> ConversationID

  /// Adds and removes members (this needs the network); removing myself is leaving. Throws
  /// what the server refuses: removing others without the right, a change that changes
  /// nothing, a group outside 1–256 members, a conversation I am no longer in.
  func changeMembers(in conversation: ConversationID, add: [UserID], remove: [UserID])
    async throws(ChatError)

  /// Gives a conversation a new title, 1–200 characters (this needs the network).
  func rename(_ conversation: ConversationID, to title: String) async throws(ChatError)

  /// Mutes a conversation on all my devices until `until` (`Date.distantFuture`: for good),
  /// or unmutes it (nil). `mentionsPush`: a message that mentions me still pushes through the
  /// mute (API.md Part 3); false: silent too. Needs the network.
  func mute(_ conversation: ConversationID, until: Date?, mentionsPush: Bool)
    async throws(ChatError)

  /// Searches the messages on this device, newest first, and says whether older matches may
  /// lie past what the device holds. Works offline.
  func search(_ query: String, limit: Int) async throws(ChatError) -> LocalSearch

  /// Searches everything I can see on the server (this needs the network), newest first:
  /// "Search older messages". `before`: a previous page's `nextCursor`.
  func searchServer(_ query: String, limit: Int, before: String?) async throws(ChatError)
    -> ServerSearch
}
