import ChatDomain
import ChatIdentifiers
import Foundation
import Observation

/// The conversation list's brain: a second reader of the same database (seed 000 §11), plus
/// search and creating conversations.
@MainActor @Observable
public final class ConversationListViewModel {
  public private(set) var viewState = ConversationListViewState()

  private let sources: ChatSources
  private var repository: any ConversationListRepository { sources.conversations }
  private var currentUserID: UserID { sources.me }
  private let formatter: TimeFormatter
  private var summaries: [ConversationSummary] = []
  private var connection: ConnectionState = .idle
  private var outbox: [OutboxEntry] = []
  private var search: SearchState?
  /// Where the server's next page of older matches starts.
  private var olderCursor: String?
  private var alert: String?

  public init(
    sources: ChatSources, formatter: TimeFormatter = TimeFormatter()
  ) {
    self.sources = sources
    self.formatter = formatter
  }

  /// Watches until the calling task is cancelled.
  public func onAppear() async {
    let conversations = repository.conversations()
    let connection = sources.connection.connectionStates()
    let outbox = sources.outbox.entries()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.follow(conversations) { @MainActor in $0.summaries = $1 } }
      group.addTask { await self.follow(connection) { @MainActor in $0.connection = $1 } }
      group.addTask { await self.follow(outbox) { @MainActor in $0.outbox = $1 } }
    }
  }

  private func follow<Value: Sendable>(
    _ stream: AsyncStream<Value>, _ apply: @MainActor (ConversationListViewModel, Value) -> Void
  ) async {
    for await value in stream {
      apply(self, value)
      render()
    }
  }

  /// Searches the messages on this device; an empty query closes the search.
  public func search(_ query: String) async {
    guard !query.isEmpty else {
      search = nil
      olderCursor = nil
      render()
      return
    }
    do {
      let local = try await repository.search(query, limit: 50)
      search = SearchState(
        query: query, results: local.hits.map(row), offersOlder: local.mayBeIncomplete)
    } catch {
      search = SearchState(query: query, error: error.description)
    }
    olderCursor = nil
    render()
  }

  /// "Search older messages": the next page of the server's matches for the current query,
  /// less those the device already shows. Needs the network; a failure is shown in the
  /// search, whose local results stay.
  public func searchOlder() async {
    guard var state = search, state.error == nil, state.older == nil || state.hasMoreOlder
    else { return }
    do {
      let page = try await repository.searchServer(
        state.query, limit: 50, before: olderCursor)
      let shown = Set(state.results.map(\.id) + (state.older ?? []).map(\.id))
      state.older =
        (state.older ?? [])
        + page.hits.filter { !shown.contains($0.messageID) }
        .map(row)
      state.hasMoreOlder = page.nextCursor != nil
      state.offersOlder = false
      olderCursor = page.nextCursor
    } catch {
      state.error = error.description
    }
    guard search?.query == state.query else { return }
    search = state
    render()
  }

  private func row(_ hit: SearchHit) -> SearchResultRow {
    SearchResultRow(
      id: hit.messageID, conversationID: hit.conversationID, title: hit.conversationTitle,
      sender: hit.senderID == currentUserID ? "You" : hit.senderID.rawValue,
      time: formatter.string(for: hit.sentAt), snippet: hit.snippet, sequence: hit.sequence)
  }

  /// Sends a held or refused message now (nil: all of them, and whatever waits tries now).
  public func sendNow(_ id: MessageID?) async {
    await sources.outbox.retry(id)
  }

  /// Discards a message that is not on the server; a failure shows as the alert.
  public func discard(_ id: MessageID) async {
    do {
      try await sources.outbox.discard(id)
      alert = nil
    } catch {
      alert = error.description
    }
    render()
  }

  private func outboxRow(_ entry: OutboxEntry) -> OutboxState.Row {
    let what =
      switch entry.kind {
      case .message: "“\(entry.text.prefix(60))”"
      case .edit: "edit: “\(entry.text.prefix(60))”"
      case .delete: "delete"
      case .reaction: "reaction \(entry.text)"
      case .pin: entry.text.hasPrefix("−") ? "unpin" : "pin"
      }
    var status: String
    switch entry.state {
    case .waiting:
      status = "waiting"
      if entry.attempts > 0 { status += " · \(entry.attempts) attempt(s)" }
      if let error = entry.lastError { status += " · last: \(error)" }
      if let next = entry.nextAttempt { status += " · next \(formatter.string(for: next))" }
      if let left = entry.mediaBytesLeft { status += " · \(left / 1024) KB to upload" }
    case .notSent: status = "not sent — send now?"
    case .failed(let reason): status = "refused: \(reason)"
    }
    let needsChoice = entry.state != .waiting
    return OutboxState.Row(
      id: entry.id, title: entry.conversationTitle, what: what, status: status,
      needsChoice: needsChoice)
  }

  /// Creates a conversation; returns its ID, or nil with the reason in `viewState.alert`.
  public func create(title: String, memberIDs: [UserID]) async -> ConversationID? {
    do {
      let id = try await repository.createConversation(title: title, memberIDs: memberIDs)
      alert = nil
      render()
      return id
    } catch {
      alert = error.description
      render()
      return nil
    }
  }

  /// A message's text, or what its media is when it has no caption; "Blocked message" for
  /// one of someone I blocked, in a group.
  nonisolated public static func preview(_ message: Message) -> String {
    if message.isFromBlockedSender, !message.isDeleted { return MessageRow.blockedText }
    guard let media = message.media, !message.isDeleted else { return message.text }
    let what = MediaRow.preview(media)
    return message.text.isEmpty ? what : "\(what) · \(message.text)"
  }

  private func render() {
    let now = formatter.now()
    viewState = ConversationListViewState(
      rows: summaries.map { summary in
        let last = summary.lastMessage
        let mine = last?.senderID == currentUserID
        let author = mine ? "You" : last?.senderID.rawValue ?? ""
        return ConversationListRow(
          id: summary.id, title: summary.title,
          preview: last.map { "\(author): \(Self.preview($0))" } ?? "",
          time: formatter.string(for: summary.lastActivity), unreadCount: summary.unreadCount,
          ticks: last.flatMap { mine ? Ticks(send: $0.send, receipt: $0.receipt) : nil },
          isMuted: summary.isMuted(at: now), mentionsMe: summary.unreadMentions > 0,
          draft: summary.draft.map { $0.text.isEmpty ? "↩ reply" : $0.text })
      }, banner: Banner.text(for: connection), search: search, alert: alert,
      totalUnread: summaries.filter { !$0.isMuted(at: now) }.reduce(0) { $0 + $1.unreadCount },
      outbox: OutboxState(rows: outbox.map(outboxRow)))
  }
}
