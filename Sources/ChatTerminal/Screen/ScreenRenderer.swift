import ChatData
import ChatDomain
import ChatPresentation

/// Draws the view models' states as terminal lines. It decides nothing: the same states give
/// the same frame, so a test reads the frame as a person would.
public enum ScreenRenderer {
  /// The whole frame, exactly `size.rows` lines of `size.columns` cells.
  public static func frame(
    model: ScreenModel, list: ConversationListViewState, conversation: ConversationViewState?,
    size: RawTerminal.Size
  ) -> [String] {
    let rows = max(size.rows, 6)
    let columns = max(size.columns, 20)
    var lines: [StyledLine] = [header(model: model, list: list, conversation: conversation)]
    let footer = footerLines(model: model, conversation: conversation, columns: columns)
    let bodyHeight = rows - 1 - footer.count
    var body: [StyledLine]
    switch model.mode {
    case .list, .newConversation:
      body = listBody(list, model: model, height: bodyHeight, columns: columns)
    case .search:
      body = searchBody(list.search, model: model, height: bodyHeight, columns: columns)
    case .conversation:
      body = conversationBody(
        conversation ?? ConversationViewState(), model: model, height: bodyHeight,
        columns: columns)
    case .help:
      body = helpBody(offersBackground: model.offersBackground)
    case .outbox:
      body = outboxBody(list.outbox, model: model)
    }
    if model.background {
      // The lock screen's notifications, above whatever the screen shows.
      body =
        [StyledLine(" In the background: ^B to come back", style: Style.dim)]
        + model.notifications.map { StyledLine(" " + $0, style: Style.bold + Style.yellow) }
        + [StyledLine()] + body
    }
    body = Array(body.prefix(bodyHeight))
    while body.count < bodyHeight { body.append(StyledLine()) }
    lines += body + footer
    return lines.map { $0.rendered(columns: columns) }
  }

  // MARK: - Parts

  static func header(
    model: ScreenModel, list: ConversationListViewState, conversation: ConversationViewState?
  ) -> StyledLine {
    var line = StyledLine()
    switch model.mode {
    case .conversation:
      line.append(" \(conversation?.title ?? "") ", style: Style.bold + Style.reverse)
    case .search:
      line.append(" Search ", style: Style.bold + Style.reverse)
    case .help:
      line.append(" Help ", style: Style.bold + Style.reverse)
    case .outbox:
      line.append(" Outbox ", style: Style.bold + Style.reverse)
    case .list, .newConversation:
      line.append(" Conversations ", style: Style.bold + Style.reverse)
    }
    line.append("  \(model.user)", style: Style.bold)
    if list.totalUnread > 0 {
      line.append("  \(list.totalUnread) unread", style: Style.green)
    }
    if model.condition != .normal {
      line.append("  network: \(model.condition.rawValue)", style: Style.yellow)
    }
    let banner = conversation?.banner ?? list.banner
    if let banner {
      line.append("  \(banner)", style: Style.yellow)
    }
    return line
  }

  static func listBody(
    _ list: ConversationListViewState, model: ScreenModel, height: Int, columns: Int
  ) -> [StyledLine] {
    // "3 messages waiting" stays above the list while anything waits; w opens it.
    let waiting = list.outbox.banner.map {
      StyledLine("  \($0) · w to see them", style: Style.yellow)
    }
    guard !list.rows.isEmpty else {
      return (waiting.map { [$0] } ?? [])
        + [StyledLine("  No conversations yet. Press n to start one.", style: Style.dim)]
    }
    var lines: [StyledLine] = []
    for (index, row) in list.rows.enumerated() {
      let selected = index == model.selected
      var title = StyledLine()
      title.append(selected ? "› " : "  ", style: Style.cyan)
      // A muted conversation is dimmed, its unread count too (it is outside the total).
      title.append(
        row.title, style: row.isMuted ? Style.dim : selected ? Style.bold + Style.cyan : Style.bold)
      if row.unreadCount > 0 {
        title.append("  \(row.unreadCount) unread", style: row.isMuted ? Style.dim : Style.green)
      }
      // A mention is never dimmed: it is what a mute lets through.
      if row.mentionsMe { title.append(" @", style: Style.bold + Style.yellow) }
      if row.isMuted { title.append("  muted", style: Style.dim) }
      title.append("  \(row.time)", style: Style.dim)
      var preview = StyledLine("    ")
      if let draft = row.draft {
        // Telegram's and WhatsApp's "Draft:" in red, in place of the last message.
        preview.append("Draft: ", style: Style.red)
        preview.append(draft.replacingOccurrences(of: "\n", with: " "), style: Style.dim)
      } else {
        if let ticks = row.ticks {
          let mark = tickMark(ticks)
          preview.append(mark.text + " ", style: mark.style)
        }
        preview.append(row.preview.replacingOccurrences(of: "\n", with: " "), style: Style.dim)
      }
      lines += [title, preview]
    }
    // Keep the selection on screen.
    let selectedLine = model.selected * 2
    let height = waiting == nil ? height : height - 1
    let first = max(0, selectedLine + 2 - height)
    return (waiting.map { [$0] } ?? []) + Array(lines.dropFirst(first))
  }

  /// The outbox: each row's conversation, what it is, and where it stands.
  static func outboxBody(_ outbox: OutboxState, model: ScreenModel) -> [StyledLine] {
    guard !outbox.rows.isEmpty else {
      return [StyledLine("  Nothing waits: every message is on the server.", style: Style.dim)]
    }
    var lines: [StyledLine] = []
    for (index, row) in outbox.rows.enumerated() {
      var line = StyledLine(index == model.selected ? "› " : "  ", style: Style.cyan)
      line.append("\(row.title)  ", style: Style.bold)
      line.append(row.what.replacingOccurrences(of: "\n", with: " ") + "  ")
      line.append(row.status, style: row.needsChoice ? Style.yellow : Style.dim)
      lines.append(line)
    }
    return lines
  }

  static func searchBody(
    _ search: SearchState?, model: ScreenModel, height: Int, columns: Int
  ) -> [StyledLine] {
    guard let search else {
      return [
        StyledLine("  Type words and press Enter; results come from this device.", style: Style.dim)
      ]
    }
    var lines: [StyledLine] = []
    if search.results.isEmpty {
      lines.append(StyledLine("  No messages match on this device.", style: Style.dim))
    }
    for (index, result) in search.results.enumerated() {
      lines.append(searchRow(result, selected: index == model.selected))
    }
    if let older = search.older {
      lines.append(
        StyledLine(
          older.isEmpty ? "  The server has no older match." : "  Older, from the server:",
          style: Style.dim))
      lines += older.map { searchRow($0, selected: false) }
    }
    if search.offersOlder || search.hasMoreOlder {
      let label = search.older == nil ? SearchState.searchOlderLabel : "More older messages"
      lines.append(StyledLine("  ^O \(label)", style: Style.cyan))
    }
    if let error = search.error { lines.append(StyledLine("  \(error)", style: Style.red)) }
    return lines
  }

  private static func searchRow(_ result: SearchResultRow, selected: Bool) -> StyledLine {
    var line = StyledLine(selected ? "› " : "  ", style: Style.cyan)
    line.append("\(result.title) · \(result.sender) · \(result.time)  ", style: Style.dim)
    for part in result.snippet.parts {
      line.append(part.text, style: part.isMatch ? Style.bold + Style.yellow : "")
    }
    return line
  }

  /// How many lines the conversation takes at this width: the screen asks for older messages
  /// only when the scroll reaches the top.
  public static func conversationLineCount(_ state: ConversationViewState, columns: Int) -> Int {
    conversationLines(state, columns: max(columns, 20)).count
  }

  /// The line "new messages" draws above the first message unread when the screen opened.
  static let newMessagesLine = "── new messages ──"

  /// Newest at the bottom, older above, like a phone's chat.
  static func conversationBody(
    _ state: ConversationViewState, model: ScreenModel, height: Int, columns: Int
  ) -> [StyledLine] {
    // The pinned bar stays at the top, above what scrolls.
    let bar = state.pinned.map { [pinnedLine($0)] } ?? []
    let height = max(0, height - bar.count)
    let lines = conversationLines(state, columns: columns)
    let scroll = min(model.scroll, max(0, lines.count - height))
    let end = lines.count - scroll
    let visible = Array(lines[max(0, end - height)..<end])
    // Anchored to the bottom, newest last (seed 000 §6.1).
    return bar + Array(repeating: StyledLine(), count: max(0, height - visible.count)) + visible
  }

  /// "📌 alice: meet at six  (2 of 3 · ^O)".
  static func pinnedLine(_ bar: PinnedBar) -> StyledLine {
    var line = StyledLine()
    line.append(" \(OutboxEntry.pinMark) ", style: Style.yellow)
    line.append(bar.line, style: Style.bold)
    let count = bar.count > 1 ? "\(bar.position) of \(bar.count) · " : ""
    line.append("  (\(count)^O opens)", style: Style.dim)
    return line
  }

  /// Every line of the conversation, oldest first: where the history stands, the bubbles (with
  /// "new messages" above the first unread), who is typing, and the way back to the newest when
  /// the screen was opened at a message.
  static func conversationLines(_ state: ConversationViewState, columns: Int) -> [StyledLine] {
    var lines: [StyledLine] = []
    switch state.history {
    case .beginning:
      lines.append(StyledLine("  — the beginning of the conversation —", style: Style.dim))
    case .loading: lines.append(StyledLine("  Loading older messages…", style: Style.dim))
    case .failed(let reason):
      lines.append(StyledLine("  Older messages: \(reason)", style: Style.red))
    case .idle: lines.append(StyledLine("  ↑ older messages", style: Style.dim))
    }
    let bubbleWidth = max(10, columns * 3 / 4)
    for row in state.rows {
      if row.id == state.firstUnread {
        let pad = max(0, (columns - TextWidth.of(newMessagesLine)) / 2)
        lines.append(
          StyledLine(String(repeating: " ", count: pad) + newMessagesLine, style: Style.yellow))
      }
      lines += bubble(row, width: bubbleWidth, columns: columns)
    }
    if let typing = state.typing { lines.append(StyledLine("  \(typing)", style: Style.dim)) }
    if state.isAwayFromNewest {
      lines.append(StyledLine("  ↓ newer messages: ^L to the newest", style: Style.dim))
    }
    return lines
  }

  static func bubble(_ row: MessageRow, width: Int, columns: Int) -> [StyledLine] {
    if row.isEvent {
      // A change to the conversation ("carol added dave"): a dim line in the middle.
      return TextWidth.wrap(row.text, columns: max(1, columns - 2)).map { part in
        StyledLine(
          String(repeating: " ", count: max(0, (columns - TextWidth.of(part)) / 2)) + part,
          style: Style.dim)
      }
    }
    let text =
      row.text.isEmpty && row.media != nil ? [] : TextWidth.wrap(row.text, columns: width - 2)
    let time = row.isEdited ? "\(row.time) · edited" : row.time
    let textStyle = row.isDeleted || row.isBlocked ? Style.dim : row.mentionsMe ? Style.yellow : ""
    var lines: [StyledLine] = []
    let media = row.media.map { mediaLines($0, width: width - 2) } ?? []
    // A reply's quote, above its text: "┃ bob: lunch at noon?", one line, dim.
    let quote = row.quote.map { quote in
      var line = StyledLine()
      line.append("┃ ", style: Style.cyan)
      line.append(
        TextWidth.wrap(quote.line, columns: max(1, width - 4)).first ?? "", style: Style.dim)
      return line
    }
    // A forward says so above it, dim (API.md Part 3).
    let forwarded = row.isForwarded ? StyledLine("↪ Forwarded", style: Style.dim) : nil
    if row.isMine {
      for head in [forwarded, quote].compactMap({ $0 }) {
        var line = StyledLine(String(repeating: " ", count: max(0, columns - head.width - 1)))
        line.append(head)
        lines.append(line)
      }
      for part in media {
        let pad = max(0, columns - part.width - 1)
        var line = StyledLine(String(repeating: " ", count: pad))
        line.append(part)
        lines.append(line)
      }
      for part in text {
        let pad = max(0, columns - TextWidth.of(part) - 1)
        var line = StyledLine(String(repeating: " ", count: pad))
        line.append(part, style: row.ticks == .failed ? Style.red : textStyle)
        lines.append(line)
      }
      var meta = StyledLine()
      let mark = tickMark(row.ticks ?? .dimmed)
      let metaText = row.groupReceipt.map { "\($0) · \(time) " } ?? "\(time) "
      let pad = max(0, columns - TextWidth.of(metaText) - TextWidth.of(mark.text) - 1)
      meta.append(String(repeating: " ", count: pad) + metaText, style: Style.dim)
      meta.append(mark.text, style: mark.style)
      if let badges = reactionLine(row.reactions) {
        var line = StyledLine(String(repeating: " ", count: max(0, columns - badges.width - 1)))
        line.append(badges)
        lines.append(line)
      }
      lines.append(meta)
    } else {
      var name = StyledLine(" ")
      name.append(row.sender ?? "", style: Style.bold + Style.cyan)
      name.append("  \(time)", style: Style.dim)
      lines.append(name)
      for head in [forwarded, quote].compactMap({ $0 }) {
        var line = StyledLine(" ")
        line.append(head)
        lines.append(line)
      }
      for part in media {
        var line = StyledLine(" ")
        line.append(part)
        lines.append(line)
      }
      for part in text {
        var line = StyledLine(" ")
        line.append(part, style: textStyle)
        lines.append(line)
      }
      if let badges = reactionLine(row.reactions) {
        var line = StyledLine(" ")
        line.append(badges)
        lines.append(line)
      }
    }
    return lines
  }

  /// The reactions under a bubble, "👍 2  ❤️ 1", mine in bold; nil for none.
  static func reactionLine(_ badges: [ReactionBadge]) -> StyledLine? {
    guard !badges.isEmpty else { return nil }
    var line = StyledLine()
    for (index, badge) in badges.enumerated() {
      if index > 0 { line.append("  ") }
      line.append(badge.label, style: badge.isMine ? Style.bold : Style.dim)
    }
    return line
  }

  /// A photo's thumbnail in half blocks with its label under it, or a document's label; an
  /// upload's progress after it.
  static func mediaLines(_ media: MediaRow, width: Int) -> [StyledLine] {
    var lines: [StyledLine] = []
    if let thumbnail = media.thumbnail,
      let picture = HalfBlockImage.lines(thumbnail, columns: min(width, 32))
    {
      lines += picture
    }
    let label = ([media.label] + (media.status.map { [$0] } ?? [])).joined(separator: " · ")
    lines += TextWidth.wrap(label, columns: max(1, width)).map { StyledLine($0, style: Style.dim) }
    return lines
  }

  /// Seed 000's ticks: clock, red retry, one tick, two ticks, read, dimmed when unknown.
  static func tickMark(_ ticks: Ticks) -> (text: String, style: String) {
    switch ticks {
    case .clock: ("◷", Style.dim)
    case .failed: ("! ^R to retry", Style.red)
    case .notSent: ("! not sent — send now? ^R send · ^X discard", Style.yellow)
    case .dimmed: ("✓", Style.dim)
    case .one: ("✓", "")
    case .two: ("✓✓", "")
    case .read: ("✓✓", Style.blue + Style.bold)
    }
  }

  static func footerLines(model: ScreenModel, conversation: ConversationViewState?, columns: Int)
    -> [StyledLine]
  {
    var lines: [StyledLine] = []
    if let alert = conversation?.alert, case .conversation = model.mode {
      lines.append(StyledLine(" \(alert)", style: Style.red))
    } else if let notice = model.notice {
      lines.append(StyledLine(" \(notice)", style: Style.yellow))
    } else {
      lines.append(StyledLine())
    }
    switch model.mode {
    case .conversation where conversation?.readOnly != nil:
      lines.append(StyledLine(" " + (conversation?.readOnly ?? ""), style: Style.dim))
      lines.append(StyledLine(" ↑/PgUp older · Esc back", style: Style.dim))
    case .conversation where model.replyingTo != nil:
      lines.append(
        StyledLine("↩ " + (model.replyingTo?.line ?? "").prefix(60), style: Style.dim))
      lines.append(StyledLine("› " + model.input + "▏", style: Style.bold))
    case .conversation where model.editing != nil:
      lines.append(StyledLine("✎ " + model.input + "▏", style: Style.bold))
      lines.append(StyledLine(" Enter save the edit · Esc cancel", style: Style.dim))
    case .conversation:
      lines.append(StyledLine("› " + model.input + "▏", style: Style.bold))
      lines.append(
        StyledLine(
          " Enter send · ^Y reply · ^T to quoted · ^E edit · ^X delete · ^G 👍 · ^P pin · "
            + "↑ older · ^R retry · "
            + "^N network · "
            + (model.offersBackground ? "^B background · " : "") + "Esc back",
          style: Style.dim))
    case .search:
      lines.append(StyledLine("/ " + model.input + "▏", style: Style.bold))
      lines.append(
        StyledLine(
          " Enter search · ↑↓ select · Tab open at the hit · ^O older, on the server · Esc back",
          style: Style.dim))
    case .outbox:
      lines.append(StyledLine())
      lines.append(
        StyledLine(
          " ↑↓ select · Enter send now · x discard · a send all now · Esc back", style: Style.dim))
    case .newConversation:
      let prompt = model.pendingTitle == nil ? "Title: " : "Members (comma-separated): "
      lines.append(StyledLine(prompt + model.input + "▏", style: Style.bold))
      lines.append(StyledLine(" Enter next · Esc cancel", style: Style.dim))
    case .list:
      lines.append(StyledLine())
      lines.append(
        StyledLine(
          " ↑↓ select · Enter open · / search · n new · ^N network · "
            + (model.offersBackground ? "^B background · " : "") + "? help · q quit",
          style: Style.dim))
    case .help:
      lines.append(StyledLine())
      lines.append(StyledLine(" Esc back", style: Style.dim))
    }
    return lines
  }
}
