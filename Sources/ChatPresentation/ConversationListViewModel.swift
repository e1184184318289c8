import ChatDomain
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
  private var search: SearchState?
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
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.follow(conversations) { @MainActor in $0.summaries = $1 } }
      group.addTask { await self.follow(connection) { @MainActor in $0.connection = $1 } }
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
      render()
      return
    }
    do {
      let hits = try await repository.search(query, limit: 50)
      search = SearchState(
        query: query,
        results: hits.map { hit in
          SearchResultRow(
            id: hit.messageID, conversationID: hit.conversationID, title: hit.conversationTitle,
            sender: hit.senderID == currentUserID ? "You" : hit.senderID.rawValue,
            time: formatter.string(for: hit.sentAt), snippet: hit.snippet)
        })
    } catch {
      search = SearchState(query: query, error: error.description)
    }
    render()
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

  /// A message's text, or what its media is when it has no caption.
  static func preview(_ message: Message) -> String {
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
          isMuted: summary.isMuted(at: now))
      }, banner: Banner.text(for: connection), search: search, alert: alert,
      totalUnread: summaries.filter { !$0.isMuted(at: now) }.reduce(0) { $0 + $1.unreadCount })
  }
}
