import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation
import Observation

/// The interactive screen: seed 000's `ConversationView` on a terminal. It draws only the view
/// models' states (through `ScreenRenderer`) and turns keys into the view models' actions; it
/// decides nothing about messages.
@MainActor
public final class TerminalApp {
  private let engine: ChatEngine
  private let conditions: NetworkConditions
  private let terminal = RawTerminal()
  private let input = KeyboardInput()
  let list: ConversationListViewModel
  var conversation: ConversationViewModel?
  private var conversationTask: Task<Void, Never>?
  var model: ScreenModel
  private var needsRender = false
  private var quitting = false
  /// The emoji Ctrl-G toggles on the newest message.
  private static let quickReaction = "👍"
  /// The demo's push gateway: Ctrl-B sends the app to the background and back.
  private let notifications: DemoNotifications?

  public convenience init(engine: ChatEngine, conditions: NetworkConditions) {
    self.init(engine: engine, conditions: conditions, notifications: nil)
  }

  init(engine: ChatEngine, conditions: NetworkConditions, notifications: DemoNotifications?) {
    self.engine = engine
    self.conditions = conditions
    self.notifications = notifications
    list = ConversationListViewModel(sources: engine.sources)
    model = ScreenModel(user: engine.currentUserID.rawValue)
    model.offersBackground = notifications != nil
  }

  /// Runs until the user quits or SIGTERM arrives; the terminal is restored on every way out.
  public func run() async {
    terminal.enter()
    defer { terminal.restore() }
    input.start()
    await engine.start()
    let listTask = Task { await list.onAppear() }
    let terminationTask = Task {
      await Signals.waitForTermination()
      self.quitting = true
      self.input.stop()
    }
    let pushTask = notifications.map { notifications in
      Task { for await payload in notifications.pushes { self.received(payload) } }
    }
    observe()
    render()
    for await event in input.events {
      switch event {
      case .resized:
        render()
      case .keys(let keys):
        for key in keys { handle(key) }
      }
      if quitting { break }
      setNeedsRender()
    }
    input.stop()
    pushTask?.cancel()
    listTask.cancel()
    conversationTask?.cancel()
    terminationTask.cancel()
    await engine.stop()
  }

  // MARK: - Rendering

  /// Re-renders whenever a view state the screen shows changes.
  private func observe() {
    withObservationTracking {
      _ = list.viewState
      _ = conversation?.viewState
    } onChange: {
      Task { @MainActor in
        self.restoreDraft()
        self.setNeedsRender()
        self.observe()
      }
    }
  }

  func setNeedsRender() {
    guard !needsRender else { return }
    needsRender = true
    Task { @MainActor in
      self.needsRender = false
      self.render()
    }
  }

  private func render() {
    markNewestVisibleRead()
    let lines = ScreenRenderer.frame(
      model: model, list: list.viewState, conversation: conversation?.viewState,
      size: terminal.size)
    terminal.write("\u{1B}[H" + lines.joined(separator: "\r\n"))
  }

  /// At the bottom of a conversation, the newest message is on screen: mark it read.
  private func markNewestVisibleRead() {
    guard case .conversation = model.mode, model.scroll == 0,
      let newest = conversation?.viewState.rows.last
    else { return }
    conversation?.onNewestVisible(newest.id)
  }

  // MARK: - Keys

  private func handle(_ key: Key) {
    if key == .control("n") {
      cycleNetwork()
      return
    }
    if key == .control("b"), notifications != nil {
      toggleBackground()
      return
    }
    switch model.mode {
    case .list: handleList(key)
    case .conversation: handleConversation(key)
    case .search: handleSearch(key)
    case .newConversation: handleNewConversation(key)
    case .help: if key == .escape || key == .character("q") || key == .enter { model.mode = .list }
    case .outbox: handleOutbox(key)
    }
  }

  /// The outbox: send a held or refused message now, discard one (x twice), or send all now.
  private func handleOutbox(_ key: Key) {
    let rows = list.viewState.outbox.rows
    let confirming = model.confirmingDelete
    model.confirmingDelete = nil
    let selected = rows.indices.contains(model.selected) ? rows[model.selected] : nil
    switch key {
    case .up: model.selected = max(0, model.selected - 1)
    case .down: model.selected = min(max(0, rows.count - 1), model.selected + 1)
    case .enter:
      guard let selected else { return }
      model.notice = "Sending now."
      Task { await list.sendNow(selected.id) }
    case .character("a"):
      model.notice = "Sending everything now."
      Task { await list.sendNow(nil) }
    case .character("x"):
      guard let selected else { return }
      if confirming == selected.id {
        model.notice = "Discarded: it will not be sent."
        Task { await list.discard(selected.id) }
      } else {
        model.confirmingDelete = selected.id
        model.notice = "Discard this message? It will never be sent. x again."
      }
    case .escape:
      model.mode = .list
      model.selected = 0
    case .control("c"): quit()
    default: break
    }
  }

  private func handleList(_ key: Key) {
    let count = list.viewState.rows.count
    switch key {
    case .up: model.selected = max(0, model.selected - 1)
    case .down: model.selected = min(max(0, count - 1), model.selected + 1)
    case .enter:
      guard list.viewState.rows.indices.contains(model.selected) else { return }
      open(list.viewState.rows[model.selected].id)
    case .character("/"):
      model.mode = .search
      model.input = ""
      model.selected = 0
    case .character("n"):
      model.mode = .newConversation
      model.input = ""
      model.pendingTitle = nil
    case .character("?"): model.mode = .help
    case .character("w"):
      model.mode = .outbox
      model.selected = 0
    case .character("q"), .control("c"), .control("d"): quit()
    default: break
    }
  }

  private func handleConversation(_ key: Key) {
    guard let conversation else { return }
    let confirming = model.confirmingDelete
    model.confirmingDelete = nil
    // What is typed (not an edit) is my draft: saved as it changes (API.md Part 3).
    let typed = (model.input, model.replyingTo?.target, model.editing)
    defer {
      if typed.2 == nil, model.editing == nil,
        model.mode == .conversation(conversation.conversation),
        typed.0 != model.input || typed.1 != model.replyingTo?.target
      {
        let (text, replyTo) = (model.input, model.replyingTo?.target)
        Task { await conversation.draftChanged(text, replyTo: replyTo) }
      }
    }
    switch key {
    case .escape where model.editing != nil:
      model.editing = nil
      model.input = ""
      model.notice = "Edit cancelled."
    case .escape where model.replyingTo != nil:
      model.replyingTo = nil
      model.notice = "Reply cancelled."
    case .escape:
      close()
    case .enter:
      let text = model.input
      guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
      model.input = ""
      model.scroll = 0
      if let id = model.editing {
        model.editing = nil
        Task { await conversation.editNow(id, to: text) }
      } else if let answered = model.replyingTo {
        model.replyingTo = nil
        Task { await conversation.replyNow(text, to: answered.target) }
      } else {
        conversation.send(text)
      }
    case .control("e"):
      guard let row = conversation.viewState.lastEditable else {
        model.notice = "No message of yours to edit."
        return
      }
      model.editing = row.id
      model.input = row.text
      model.notice = "Editing your last message: Enter saves, Esc cancels."
    case .control("x"):
      guard let row = conversation.viewState.lastEditable else {
        model.notice = "No message of yours to delete."
        return
      }
      if confirming == row.id {
        model.notice = "Deleted for everyone."
        Task { await conversation.deleteNow(row.id) }
      } else {
        model.confirmingDelete = row.id
        model.notice = "Delete your last message for everyone? ^X again."
      }
    case .control("y"):
      guard let row = conversation.viewState.lastReactable else {
        model.notice = "No message to reply to."
        return
      }
      model.editing = nil
      model.replyingTo = QuoteRow(
        target: row.id, author: row.sender ?? "You",
        text: row.text.isEmpty ? (row.media?.label ?? "") : row.text)
      model.notice = "Replying to the newest message: Enter sends, Esc cancels."
    case .control("t"):
      // To the message the newest reply quotes.
      guard let reply = conversation.viewState.rows.last(where: { $0.quote != nil }) else {
        model.notice = "No reply to follow."
        return
      }
      model.scroll = 0
      model.notice = "Opening at the quoted message."
      Task {
        if await !conversation.openQuote(of: reply.id) {
          model.notice = conversation.viewState.alert ?? "The quoted message is on screen."
          setNeedsRender()
        }
      }
    case .control("l"):
      model.scroll = 0
      model.notice = nil
      Task { await conversation.showNewest() }
    case .control("g"):
      guard let row = conversation.viewState.lastReactable else {
        model.notice = "No message to react to."
        return
      }
      let mine = row.reactions.contains { $0.emoji == Self.quickReaction && $0.isMine }
      model.notice =
        mine ? "Took your \(Self.quickReaction) back." : "Reacted \(Self.quickReaction)."
      Task { await conversation.toggleReaction(Self.quickReaction, on: row.id) }
    case .control("p"):
      guard let row = conversation.viewState.lastReactable else {
        model.notice = "No message to pin."
        return
      }
      let pinned = conversation.viewState.pinned?.message == row.id
      model.notice = pinned ? "Unpinning the newest message." : "Pinning the newest message."
      Task { await conversation.togglePin(row.id) }
    case .control("o"):
      guard conversation.viewState.pinned != nil else {
        model.notice = "Nothing is pinned."
        return
      }
      model.scroll = 0
      model.notice = "Opening at the pinned message."
      Task { await conversation.openPinned() }
    case .control("r"):
      // Refused ones, and those held because they waited too long ("send now").
      let failed = conversation.viewState.rows.filter {
        $0.ticks == .failed || $0.ticks == .notSent
      }
      for row in failed { conversation.retry(row.id) }
      model.notice = failed.isEmpty ? "Nothing to retry." : "Retrying \(failed.count) message(s)."
    case .backspace:
      if !model.input.isEmpty { model.input.removeLast() }
    case .up, .pageUp:
      let size = terminal.size
      let bodyHeight = max(1, size.rows - 4)
      let total = ScreenRenderer.conversationLineCount(
        conversation.viewState, columns: size.columns)
      let top = max(0, total - bodyHeight)
      model.scroll = min(top, model.scroll + (key == .up ? 1 : bodyHeight))
      // At the top: ask for older messages (the view model ignores a second ask while loading).
      if model.scroll >= top { Task { await conversation.onTopReached() } }
    case .down, .pageDown:
      model.scroll = max(0, model.scroll - (key == .down ? 1 : max(1, terminal.size.rows - 4)))
    case .control("c"), .control("d"):
      quit()
    case .character(let character):
      model.input.append(character)
      conversation.onTyping()
    default:
      break
    }
  }

  // MARK: - Actions

  /// Puts my draft back in the input when a conversation opens: once, into an empty input.
  private func restoreDraft() {
    guard case .conversation = model.mode, model.input.isEmpty, model.editing == nil,
      model.replyingTo == nil, let draft = conversation?.takeDraftToRestore()
    else { return }
    model.input = draft.text
    if let target = draft.replyTo {
      let row = conversation?.viewState.rows.first { $0.id == target }
      model.replyingTo = QuoteRow(
        target: target, author: row.map { $0.sender ?? "You" } ?? "",
        text: row.map { $0.text.isEmpty ? ($0.media?.label ?? "") : $0.text } ?? "")
    }
  }

  func open(_ id: ConversationID) {
    conversationTask?.cancel()
    let model = ConversationViewModel(conversation: id, sources: engine.sources)
    conversation = model
    self.model.mode = .conversation(id)
    self.model.input = ""
    self.model.scroll = 0
    self.model.notice = nil
    conversationTask = Task { await model.onAppear() }
    observe()
  }

  private func close() {
    conversationTask?.cancel()
    conversationTask = nil
    conversation = nil
    model.mode = .list
    model.input = ""
    model.editing = nil
  }

  private func cycleNetwork() {
    let all = NetworkCondition.allCases
    let next = all[(all.firstIndex(of: conditions.condition)! + 1) % all.count]
    conditions.condition = next
    model.condition = next
    model.notice = "Network: \(next.rawValue)"
  }

  /// Ctrl-B: as a phone's app leaving the screen and coming back. In the background the engine
  /// closes its socket after a grace second and finishes its sends; pushes then come through the
  /// demo's webhook gateway, each shown as the lock screen would (one line per conversation,
  /// the newest replacing the older), and each wakes the engine for a bounded sync, as the
  /// system does. Back in the foreground the engine connects and catches up.
  private func toggleBackground() {
    model.background.toggle()
    // What came while the app was open was seen there: the lock screen starts empty.
    notifications?.clear()
    model.notifications = []
    if model.background {
      model.notice = "In the background: the socket closes; pushes show above. ^B to come back."
      Task { await engine.enterBackground(grace: .seconds(1), window: .seconds(30)) }
    } else {
      model.notice = "Back in the foreground: connected and caught up."
      Task { await engine.enterForeground() }
    }
  }

  /// A push came: the lock screen's lines, and the bounded sync a phone runs for it.
  private func received(_ payload: PushPayload) {
    guard model.background, let notifications else { return }
    model.notifications = notifications.shown.map { notification in
      let more = notification.pushes > 1 ? "  (updated \(notification.pushes - 1)×)" : ""
      return "🔔 \(notification.title): \(notification.body)\(more)"
    }
    setNeedsRender()
    Task { _ = await engine.handlePush(payload, budget: .seconds(10)) }
  }

  func quit() {
    quitting = true
  }
}
