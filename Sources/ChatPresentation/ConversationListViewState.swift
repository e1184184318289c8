import ChatDomain
import ChatIdentifiers
import Foundation

/// The conversation list screen.
public struct ConversationListViewState: Equatable, Sendable {
  public var rows: [ConversationListRow]
  public var banner: String?
  /// What waits to be sent.
  public var outbox = OutboxState()
  public var search: SearchState?
  public var alert: String?
  /// Unread over every conversation not muted (the app's badge).
  public var totalUnread: Int

  public init(
    rows: [ConversationListRow] = [], banner: String? = nil, search: SearchState? = nil,
    alert: String? = nil, totalUnread: Int = 0, outbox: OutboxState = OutboxState()
  ) {
    self.outbox = outbox
    self.totalUnread = totalUnread
    self.rows = rows
    self.banner = banner
    self.search = search
    self.alert = alert
  }
}

/// One row of the conversation list.
public struct ConversationListRow: Equatable, Identifiable, Sendable {
  public let id: ConversationID
  public let title: String
  /// The last message, e.g. "bob: see you" or "You: on my way"; empty when there is none.
  /// A screen shows `draft` in its place when there is one.
  public let preview: String
  public let time: String
  public let unreadCount: Int
  /// The last message's ticks when it is mine.
  public let ticks: Ticks?
  /// Muted now: shown dimmed, and outside the total unread count.
  public let isMuted: Bool
  /// Some unread message mentions me: "@" beside the count (even when muted).
  public let mentionsMe: Bool
  /// My draft here (API.md Part 3), shown instead of the last message: "Draft: on my w".
  public let draft: String?

  public init(
    id: ConversationID, title: String, preview: String, time: String, unreadCount: Int,
    ticks: Ticks?, isMuted: Bool = false, mentionsMe: Bool = false, draft: String? = nil
  ) {
    self.draft = draft
    self.mentionsMe = mentionsMe
    self.isMuted = isMuted
    self.id = id
    self.title = title
    self.preview = preview
    self.time = time
    self.unreadCount = unreadCount
    self.ticks = ticks
  }
}

/// The outbox as the list shows it: a banner while anything waits ("3 messages waiting"), and
/// the rows it opens.
public struct OutboxState: Equatable, Sendable {
  public struct Row: Equatable, Identifiable, Sendable {
    public let id: MessageID
    public let title: String
    /// "“See you at noon”", "edit: “…”", "delete".
    public let what: String
    /// "waiting · 3 attempts · last: offline · next 14:05", "not sent — send now?", "refused: …".
    public let status: String
    /// Held or refused: only the user's choice (send now, discard) moves it.
    public let needsChoice: Bool

    public init(id: MessageID, title: String, what: String, status: String, needsChoice: Bool) {
      self.id = id
      self.title = title
      self.what = what
      self.status = status
      self.needsChoice = needsChoice
    }
  }

  public var rows: [Row]

  public init(rows: [Row] = []) { self.rows = rows }

  /// "1 message waiting", "3 messages waiting"; nil when nothing waits.
  public var banner: String? {
    rows.isEmpty ? nil : rows.count == 1 ? "1 message waiting" : "\(rows.count) messages waiting"
  }
}

/// A search in progress or done.
public struct SearchState: Equatable, Sendable {
  public var query: String
  /// What this device holds, newest first.
  public var results: [SearchResultRow]
  public var error: String?
  /// The device may not hold every match (its history was pruned, or not all fetched): the
  /// screen offers "Search older messages".
  public var offersOlder: Bool
  /// The server's matches this device does not hold, newest first; nil until asked.
  public var older: [SearchResultRow]?
  /// The server has more, older matches (ask again for the next page).
  public var hasMoreOlder: Bool

  public init(
    query: String, results: [SearchResultRow] = [], error: String? = nil,
    offersOlder: Bool = false, older: [SearchResultRow]? = nil, hasMoreOlder: Bool = false
  ) {
    self.query = query
    self.results = results
    self.error = error
    self.offersOlder = offersOlder
    self.older = older
    self.hasMoreOlder = hasMoreOlder
  }

  /// The action's label.
  public static let searchOlderLabel = "Search older messages"
}

/// One search result.
public struct SearchResultRow: Equatable, Identifiable, Sendable {
  public var id: MessageID
  public let conversationID: ConversationID
  public let title: String
  public let sender: String
  public let time: String
  public let snippet: Snippet
  /// Where the conversation opens for this hit (nil: a message not sent yet: at the newest).
  public let sequence: Int?

  public init(
    id: MessageID, conversationID: ConversationID, title: String, sender: String, time: String,
    snippet: Snippet, sequence: Int? = nil
  ) {
    self.sequence = sequence
    self.id = id
    self.conversationID = conversationID
    self.title = title
    self.sender = sender
    self.time = time
    self.snippet = snippet
  }
}
