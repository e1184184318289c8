import ChatDomain
import ChatIdentifiers
import Foundation
import Observation

/// The conversation screen's brain (seed 000 part 2): watches the conversation and turns it into
/// one `ConversationViewState`. It decides nothing about storage or the network; it only asks
/// the `MessageRepository` (and, for the title, the typing line and the banner, the list,
/// typing and connection promises of `ChatSources`).
@MainActor @Observable
public final class ConversationViewModel {
  public private(set) var viewState = ConversationViewState()

  public let conversation: ConversationID
  private let sources: ChatSources
  private var repository: any MessageRepository { sources.messages }
  private let formatter: TimeFormatter
  private var messages: [Message] = []
  /// The rows of `messages`, kept between renders: a render for a typing or connection change
  /// formats nothing, and a new message formats one row, not 50.
  private var rows: [MessageRow] = []
  private var rowCache: [MessageID: (message: Message, row: MessageRow)] = [:]
  private var rowCacheDay: LocalDay?
  private var summary: ConversationSummary?
  private var connection: ConnectionState = .idle
  private var typingUsers: [UserID] = []
  private var history: HistoryState = .idle
  private var alert: String?
  /// My read number when the screen opened, while something was unread then (nil: nothing
  /// was): where "new messages" goes, and where the screen opens.
  private var unreadAbove: Int?
  private var sawSummary = false
  /// Whether the screen has asked to open at the first unread (once).
  private var openedAtFirstUnread = false
  private var isAwayFromNewest = false
  /// Which pin the pinned bar shows (0: the newest); a tap moves it on.
  private var pinIndex = 0
  /// My draft when the screen opened (the first summary's), until the screen takes it.
  private var draftToRestore: MessageDraft?

  public init(
    conversation: ConversationID, sources: ChatSources, formatter: TimeFormatter = TimeFormatter()
  ) {
    self.conversation = conversation
    self.sources = sources
    self.formatter = formatter
  }

  /// Watches until the calling task is cancelled (the screen went away).
  public func onAppear() async {
    let messages = repository.messages(in: conversation)
    let summaries = sources.conversations.conversation(conversation)
    let typing = sources.typing.typingUsers(in: conversation)
    let connection = sources.connection.connectionStates()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await self.follow(messages) { @MainActor in
          $0.messages = $1
          $0.updateRows()
          $0.openAtFirstUnreadIfAbove()
        }
      }
      group.addTask {
        await self.follow(summaries) { @MainActor in
          $0.summary = $1
          $0.noteFirstUnread()
        }
      }
      group.addTask { await self.follow(typing) { @MainActor in $0.typingUsers = $1 } }
      group.addTask { await self.follow(connection) { @MainActor in $0.connection = $1 } }
    }
  }

  /// Applies each value of `stream` and renders.
  private func follow<Value: Sendable>(
    _ stream: AsyncStream<Value>, _ apply: @MainActor (ConversationViewModel, Value) -> Void
  ) async {
    for await value in stream {
      apply(self, value)
      render()
    }
  }

  /// Sends: the bubble appears as soon as the repository saved it.
  public func send(_ text: String) {
    Task { await sendNow(text) }
  }

  /// `send(_:)` for callers that wait for the save (and tests).
  public func sendNow(_ text: String) async {
    await perform { model throws(ChatError) in
      try await model.repository.send(text, in: model.conversation)
    }
  }

  /// Sends my reply to a message of the conversation: it shows at once with its quote.
  public func replyNow(_ text: String, to target: MessageID) async {
    await perform { model throws(ChatError) in
      try await model.repository.reply(text, to: target, in: model.conversation)
    }
  }

  /// Edits my message for everyone (the screen offers `viewState.lastEditable`): it shows at
  /// once; an unsent one is changed before it goes.
  public func editNow(_ id: MessageID, to text: String) async {
    await perform { model throws(ChatError) in
      try await model.repository.edit(id, in: model.conversation, to: text)
    }
  }

  /// Deletes my message for everyone: a tombstone at once.
  public func deleteNow(_ id: MessageID) async {
    await perform { model throws(ChatError) in
      try await model.repository.delete(id, in: model.conversation)
    }
  }

  /// Toggles my reaction on a message: takes `emoji` back when the message shows it as mine,
  /// else adds it. It shows at once; toggled back before it is sent, nothing is sent.
  public func toggleReaction(_ emoji: String, on id: MessageID) async {
    let mine =
      messages.first { $0.id == id }?.reactions.contains { $0.emoji == emoji && $0.includesMe }
      ?? false
    await perform { model throws(ChatError) in
      try await model.repository.react(emoji, to: id, in: model.conversation, remove: mine)
    }
  }

  /// My draft when the screen opened, for the input (API.md Part 3: typed on any device of
  /// mine, restored here with the message it answers); nil once taken, or when there is none.
  public func takeDraftToRestore() -> MessageDraft? {
    defer { draftToRestore = nil }
    return draftToRestore
  }

  /// What I am typing changed: it is saved as my draft (here at once, on my other devices
  /// soon). Only a failure shows, as the alert.
  public func draftChanged(_ text: String, replyTo: MessageID?) async {
    do {
      try await repository.saveDraft(text, replyTo: replyTo, in: conversation)
    } catch {
      alert = error.description
      render()
    }
  }

  /// Pins a message for everyone in the conversation, or unpins it when it is pinned: the
  /// pinned bar shows it at once; undone before it is sent, nothing is sent.
  public func togglePin(_ id: MessageID) async {
    let pinned = summary?.pinned.contains { $0.id == id } ?? false
    await perform { model throws(ChatError) in
      try await model.repository.pin(id, in: model.conversation, remove: pinned)
    }
  }

  /// The pinned bar was tapped: opens the conversation at the message it shows, and the bar
  /// moves on to the next pin (round again after the oldest).
  public func openPinned() async {
    let pins = summary?.pinned ?? []
    guard !pins.isEmpty else { return }
    let pin = pins[pinIndex % pins.count]
    pinIndex = (pinIndex + 1) % pins.count
    guard let sequence = pin.sequence else {
      alert = "That pinned message is not on this device yet."
      render()
      return
    }
    await open(at: sequence)
  }

  /// Opens the conversation at a message (a search hit, a pin): the rows around it, from the
  /// device or the server; `showNewest` goes back.
  public func open(at sequence: Int) async {
    await perform { model throws(ChatError) in
      try await model.repository.open(at: sequence, in: model.conversation)
      model.isAwayFromNewest = true
    }
  }

  /// Opens the conversation at the message a reply quotes. Returns false when there is
  /// nowhere to go: it is on screen already, or the reader cannot see it (the alert says so).
  @discardableResult
  public func openQuote(of reply: MessageID) async -> Bool {
    guard let quote = rows.first(where: { $0.id == reply })?.quote else { return false }
    if rows.contains(where: { $0.id == quote.target }) { return false }
    guard let sequence = quote.sequence else {
      alert = "That message cannot be shown here."
      render()
      return false
    }
    await open(at: sequence)
    return true
  }

  /// Back to the newest messages.
  public func showNewest() async {
    guard isAwayFromNewest else { return }
    isAwayFromNewest = false
    await repository.showNewest(in: conversation)
    render()
  }

  /// The first summary says what was unread when the screen opened, and my draft.
  private func noteFirstUnread() {
    guard !sawSummary, let summary else { return }
    sawSummary = true
    draftToRestore = summary.draft
    if summary.unreadCount > 0 { unreadAbove = summary.readUpTo }
    openAtFirstUnreadIfAbove()
  }

  /// Opens at the first unread message when the newest rows start after it (more unread than
  /// the window holds), once. Not asked for by the user: when it cannot (offline, and the
  /// device does not hold it), the screen stays at the newest and says nothing.
  private func openAtFirstUnreadIfAbove() {
    guard let unreadAbove, !openedAtFirstUnread, let oldest = rows.compactMap(\.sequence).min(),
      oldest > unreadAbove + 1
    else { return }
    openedAtFirstUnread = true
    Task {
      do {
        try await repository.open(at: unreadAbove + 1, in: conversation)
        isAwayFromNewest = true
        render()
      } catch {}
    }
  }

  /// Runs one action of the user's: a refusal shows as the alert, a success clears it.
  private func perform(
    _ action: @MainActor (ConversationViewModel) async throws(ChatError) -> Void
  ) async {
    do {
      try await action(self)
      alert = nil
    } catch {
      alert = error.description
    }
    render()
  }

  public func retry(_ id: MessageID) {
    Task { await repository.retry(id) }
  }

  /// The top of the list is visible: show older messages.
  public func onTopReached() async {
    guard history == .idle || isFailed(history) else { return }
    history = .loading
    render()
    do {
      history = try await repository.loadOlder(in: conversation) ? .idle : .beginning
    } catch {
      history = .failed(error.description)
    }
    render()
  }

  /// A message is on screen at the bottom: mark read up to the newest sequence at or before it.
  public func onNewestVisible(_ id: MessageID) {
    guard let index = messages.firstIndex(where: { $0.id == id }) else { return }
    guard let sequence = messages[...index].compactMap(\.sequence).max() else { return }
    repository.markRead(upTo: sequence, in: conversation)
  }

  /// The user typed a character.
  public func onTyping() {
    sources.typing.userIsTyping(in: conversation)
  }

  private func isFailed(_ state: HistoryState) -> Bool {
    if case .failed = state { return true }
    return false
  }

  /// Turns `messages` into rows, reusing the row of every message unchanged since the last
  /// time (on the same day: "14:02" becomes "Mon 14:02" tomorrow).
  private func updateRows() {
    let me = sources.me
    let today = formatter.today()
    if today != rowCacheDay {
      rowCache.removeAll()
      rowCacheDay = today
    }
    var cache: [MessageID: (message: Message, row: MessageRow)] = [:]
    cache.reserveCapacity(messages.count)
    rows = messages.map { message in
      if let cached = rowCache[message.id], cached.message == message {
        cache[message.id] = cached
        return cached.row
      }
      let mine = message.senderID == me
      if let event = message.event {
        let row = MessageRow(
          id: message.id, text: Self.line(for: event, by: message.senderID, me: me),
          isMine: mine, sender: nil, time: formatter.string(for: message.sentAt, today: today),
          ticks: nil, sequence: message.sequence, isEvent: true)
        cache[message.id] = (message, row)
        return row
      }
      if message.isFromBlockedSender, !message.isDeleted {
        let row = MessageRow(
          id: message.id, text: MessageRow.blockedText, isMine: false,
          sender: message.senderID.rawValue,
          time: formatter.string(for: message.sentAt, today: today), ticks: nil,
          sequence: message.sequence, isBlocked: true)
        cache[message.id] = (message, row)
        return row
      }
      let row = MessageRow(
        id: message.id, text: message.isDeleted ? MessageRow.deletedText : message.text,
        isMine: mine, sender: mine ? nil : message.senderID.rawValue,
        time: formatter.string(for: message.sentAt, today: today),
        ticks: mine ? Ticks(send: message.send, receipt: message.receipt) : nil,
        sequence: message.sequence, isEdited: message.editedAt != nil && !message.isDeleted,
        isDeleted: message.isDeleted, groupReceipt: message.group.flatMap(Self.line(for:)),
        media: message.isDeleted ? nil : message.media.map(MediaRow.init),
        reactions: message.reactions.map {
          ReactionBadge(emoji: $0.emoji, count: $0.count, isMine: $0.includesMe)
        }, quote: message.replyTo.map { Self.quoteRow($0, me: me) },
        mentionsMe: message.mentions.contains(me), isForwarded: message.isForwarded)
      cache[message.id] = (message, row)
      return row
    }
    rowCache = cache
  }

  /// A reply's quote line: the answered message as it is now, a photo or file by its kind, a
  /// delete as a tombstone, and nothing of a message the reader cannot see.
  public static func quoteRow(_ quoted: QuotedMessage, me: UserID) -> QuoteRow {
    guard let quote = quoted.quote else {
      return QuoteRow(target: quoted.id, author: nil, text: QuoteRow.hiddenText)
    }
    let author = quote.senderID == me ? "You" : quote.senderID.rawValue
    if quote.isDeleted {
      return QuoteRow(
        target: quoted.id, author: author, text: MessageRow.deletedText, sequence: quote.sequence)
    }
    let kind = quote.mediaKind.map { $0 == .image ? "Photo" : "File" }
    let text =
      switch (kind, quote.text.isEmpty) {
      case (let kind?, true): kind
      case (let kind?, false): "\(kind) · \(quote.text)"
      case (nil, _): quote.text
      }
    return QuoteRow(target: quoted.id, author: author, text: text, sequence: quote.sequence)
  }

  /// A change's line: "carol added dave", "You removed bob", "bob left", "carol named the
  /// conversation “Sunday hike”".
  public static func line(for event: ConversationEvent, by sender: UserID, me: UserID) -> String {
    let who = sender == me ? "You" : sender.rawValue
    func names(_ users: [UserID]) -> String {
      users.map { $0 == me ? "you" : $0.rawValue }.joined(separator: ", ")
    }
    switch event {
    case .membersChanged(let added, let removed):
      if added.isEmpty && removed == [sender] { return "\(who) left" }
      var parts: [String] = []
      if !added.isEmpty { parts.append("added " + names(added)) }
      if !removed.isEmpty { parts.append("removed " + names(removed)) }
      return who + " " + parts.joined(separator: " and ")
    case .titleChanged(let title):
      return "\(who) named the conversation “\(title)”"
    }
  }

  /// "read by 3 of 7" once someone read it, else "delivered to 5 of 7"; nil before either.
  public static func line(for receipt: GroupReceipt) -> String? {
    if !receipt.readBy.isEmpty {
      return "read by \(receipt.readBy.count) of \(receipt.memberCount)"
    }
    if !receipt.deliveredTo.isEmpty {
      return "delivered to \(receipt.deliveredTo.count) of \(receipt.memberCount)"
    }
    return nil
  }

  private func render() {
    // Past midnight every time reads differently ("14:02" → "Mon 14:02"), whatever changed.
    if rowCacheDay != nil, formatter.today() != rowCacheDay { updateRows() }
    let readOnly: String? =
      switch summary?.participation {
      case .removed?: "You were removed from this conversation."
      case .left?: "You left this conversation."
      case .member?, nil: nil
      }
    viewState = ConversationViewState(
      title: summary?.title ?? "", rows: rows, banner: Banner.text(for: connection),
      history: history, typing: readOnly == nil ? Banner.typing(typingUsers) : nil,
      alert: alert, readOnly: readOnly,
      firstUnread: unreadAbove.flatMap { above in
        rows.first { ($0.sequence ?? 0) > above && !$0.isMine && !$0.isEvent }?.id
      }, isAwayFromNewest: isAwayFromNewest, pinned: pinnedBar())
  }

  private func pinnedBar() -> PinnedBar? {
    let pins = summary?.pinned ?? []
    guard !pins.isEmpty else { return nil }
    let index = pinIndex % pins.count
    let pin = pins[index]
    let line: String
    if let text = pin.text {
      let author = pin.senderID.map { $0 == sources.me ? "You" : $0.rawValue }
      let shown = text.isEmpty ? PinnedBar.mediaText : String(text.prefix(80))
      line = author.map { "\($0): \(shown)" } ?? shown
    } else {
      line = PinnedBar.notHeldText
    }
    return PinnedBar(message: pin.id, line: line, position: index + 1, count: pins.count)
  }
}
