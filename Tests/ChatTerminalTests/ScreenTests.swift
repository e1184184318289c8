import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation
import ImagePipeline
import Testing

@testable import ChatTerminal

@Suite struct ScreenTests {
  let size = RawTerminal.Size(rows: 12, columns: 40)

  func row(_ n: Int, mine: Bool, ticks: Ticks?, text: String? = nil) -> MessageRow {
    MessageRow(
      id: MessageID(rawValue: String(format: "01900000-0000-7000-8000-%012x", n))!,
      text: text ?? "message \(n)", isMine: mine, sender: mine ? nil : "bob", time: "14:0\(n)",
      ticks: ticks, sequence: n)
  }

  @Test func reactionsShowUnderTheBubbleMineInBold() {
    let row = MessageRow(
      id: MessageID(rawValue: "01900000-0000-7000-8000-000000000001")!, text: "lunch?",
      isMine: false, sender: "bob", time: "14:01", ticks: nil, sequence: 1,
      reactions: [
        ReactionBadge(emoji: "👍", count: 2, isMine: true),
        ReactionBadge(emoji: "❤️", count: 1, isMine: false),
      ])
    let lines = ScreenRenderer.bubble(row, width: 30, columns: 40)
    #expect(lines.last?.plain == " 👍 2  ❤️ 1")
    #expect(lines.last?.runs.first { $0.text == "👍 2" }?.style == Style.bold)
    let bare = MessageRow(
      id: row.id, text: "lunch?", isMine: false, sender: "bob", time: "14:01", ticks: nil,
      sequence: 1)
    #expect(ScreenRenderer.bubble(bare, width: 30, columns: 40).count == lines.count - 1)
  }

  @Test func aReplyShowsItsQuoteAboveItsTextAndAMentionOfMeStandsOut() {
    let target = MessageID(rawValue: "01900000-0000-7000-8000-000000000001")!
    let row = MessageRow(
      id: MessageID(rawValue: "01900000-0000-7000-8000-000000000002")!, text: "yes @alice",
      isMine: false, sender: "bob", time: "14:02", ticks: nil, sequence: 2,
      quote: QuoteRow(target: target, author: "You", text: "lunch at noon?"), mentionsMe: true)
    let lines = ScreenRenderer.bubble(row, width: 30, columns: 40)
    #expect(lines.map(\.plain) == [" bob  14:02", " ┃ You: lunch at noon?", " yes @alice"])
    #expect(lines.last?.runs.first { $0.text == "yes @alice" }?.style == Style.yellow)
    let mine = MessageRow(
      id: row.id, text: "see you", isMine: true, sender: nil, time: "14:02", ticks: .dimmed,
      sequence: 2, quote: QuoteRow(target: target, author: nil, text: QuoteRow.hiddenText))
    let drawn = ScreenRenderer.bubble(mine, width: 44, columns: 50).map(\.plain)
    #expect(drawn.first?.hasSuffix("┃ \(QuoteRow.hiddenText)") == true)
    #expect(drawn.first.map(TextWidth.of) == 49)
  }

  @Test func aFrameIsExactlyTheTerminalsSize() {
    var model = ScreenModel(user: "alice")
    model.mode = .conversation(ConversationID("c1"))
    let state = ConversationViewState(
      title: "Hiking", rows: (1...30).map { row($0 % 10, mine: $0 % 2 == 0, ticks: .read) })
    let frame = ScreenRenderer.frame(
      model: model, list: ConversationListViewState(), conversation: state, size: size)
    #expect(frame.count == 12)
    for line in frame {
      let plain = line.replacingOccurrences(
        of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
      #expect(TextWidth.of(plain) == 40)
    }
  }

  @Test func aSearchThatMayBeIncompleteOffersOlderMessagesThenShowsThemApart() {
    var model = ScreenModel(user: "alice")
    model.mode = .search
    let hit = SearchResultRow(
      id: row(1, mine: false, ticks: nil).id, conversationID: ConversationID("c1"), title: "Hike",
      sender: "bob", time: "14:01",
      snippet: Snippet(parts: [Snippet.Part(text: "trail", isMatch: true)]))
    func text(_ search: SearchState) -> String {
      var list = ConversationListViewState()
      list.search = search
      return ScreenRenderer.frame(model: model, list: list, conversation: nil, size: size)
        .joined(separator: "\n").replacingOccurrences(
          of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }
    let offered = text(SearchState(query: "trail", results: [hit], offersOlder: true))
    #expect(offered.contains("^O Search older messages"))
    let shown = text(
      SearchState(query: "trail", results: [hit], older: [hit], hasMoreOlder: false))
    #expect(shown.contains("Older, from the server:"))
    #expect(!shown.contains("^O Search older messages"))
    let complete = text(SearchState(query: "trail", results: [hit]))
    #expect(!complete.contains("^O Search older") && !complete.contains("^O More older"))
  }

  @Test func theListSaysWhatWaitsAndTheOutboxShowsEachRowAndItsChoice() {
    var model = ScreenModel(user: "alice")
    let waiting = OutboxState.Row(
      id: row(1, mine: true, ticks: nil).id, title: "Hike", what: "“on my way”",
      status: "waiting · 2 attempt(s) · last: offline", needsChoice: false)
    let held = OutboxState.Row(
      id: row(2, mine: true, ticks: nil).id, title: "Hike", what: "“see you at noon”",
      status: "not sent — send now?", needsChoice: true)
    var list = ConversationListViewState()
    list.outbox = OutboxState(rows: [waiting, held])
    func text() -> String {
      ScreenRenderer.frame(
        model: model, list: list, conversation: nil, size: RawTerminal.Size(rows: 12, columns: 100)
      )
      .joined(separator: "\n").replacingOccurrences(
        of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }
    #expect(text().contains("2 messages waiting · w to see them"))
    model.mode = .outbox
    let outbox = text()
    #expect(outbox.contains("Outbox"))
    #expect(outbox.contains("“on my way”"))
    #expect(outbox.contains("not sent — send now?"))
    list.outbox = OutboxState()
    model.mode = .list
    #expect(!text().contains("waiting"))
  }

  @Test func ticksAreDrawnAsTheSeedDefinesThem() {
    #expect(ScreenRenderer.tickMark(.clock).text == "◷")
    #expect(ScreenRenderer.tickMark(.failed).style.contains(Style.red))
    #expect(ScreenRenderer.tickMark(.dimmed).style == Style.dim)
    #expect(ScreenRenderer.tickMark(.one).text == "✓")
    #expect(ScreenRenderer.tickMark(.two).text == "✓✓")
    #expect(ScreenRenderer.tickMark(.read).style.contains(Style.blue))
  }

  @Test func anEditedBubbleSaysEditedAndADeletedOneIsDimmed() {
    let edited = MessageRow(
      id: MessageID(rawValue: "01900000-0000-7000-8000-000000000001")!, text: "new text",
      isMine: false, sender: "bob", time: "14:01", ticks: nil, sequence: 1, isEdited: true)
    let heading = ScreenRenderer.bubble(edited, width: 30, columns: 40).first?.plain ?? ""
    #expect(heading.contains("14:01 · edited"))
    let deleted = MessageRow(
      id: MessageID(rawValue: "01900000-0000-7000-8000-000000000002")!,
      text: MessageRow.deletedText, isMine: true, sender: nil, time: "14:02", ticks: .read,
      sequence: 2, isDeleted: true)
    let lines = ScreenRenderer.bubble(deleted, width: 30, columns: 40)
    #expect(lines.first?.plain.contains(MessageRow.deletedText) == true)
    #expect(lines.first?.runs.contains { $0.style == Style.dim && !$0.text.isEmpty } == true)
  }

  @Test func aPhotoIsDrawnInColouredHalfBlocksAboveItsLabelAndCaption() throws {
    // A 40 × 20 thumbnail: red on top, blue below.
    var pixels: [UInt8] = []
    for y in 0..<20 {
      for _ in 0..<40 { pixels += y < 10 ? [230, 20, 20] : [20, 20, 230] }
    }
    let jpeg = try ImagePipeline.encode(
      RGBImage(width: 40, height: 20, pixels: pixels), quality: 90)
    let row = MessageRow(
      id: MessageID(rawValue: "01900000-0000-7000-8000-000000000003")!, text: "the view",
      isMine: false, sender: "carol", time: "14:03", ticks: nil, sequence: 3,
      media: MediaRow(
        isPhoto: true, label: "Photo · 1600×800", thumbnail: jpeg, status: nil))
    let lines = ScreenRenderer.bubble(row, width: 30, columns: 40)
    let picture = lines.filter { $0.plain.contains("▀") }
    #expect(picture.count == 7, "28 cells wide keeps 2:1 in 14 pixel rows")
    #expect(picture.allSatisfy { $0.plain.trimmingCharacters(in: .whitespaces).count == 28 })
    // Each cell: the pixel above as the foreground, the one below as the background.
    func colours(_ line: StyledLine?) -> [[Int]] {
      (line?.runs.last?.style ?? "").split(separator: "m").map {
        $0.split(separator: ";").suffix(3).compactMap { Int($0) }
      }
    }
    let top = colours(picture.first)
    let bottom = colours(picture.last)
    #expect(top.count == 2 && top.allSatisfy { $0[0] > 150 && $0[2] < 100 }, "red: \(top)")
    #expect(
      bottom.count == 2 && bottom.allSatisfy { $0[2] > 150 && $0[0] < 100 }, "blue: \(bottom)")
    #expect(lines.map(\.plain).contains(" Photo · 1600×800"))
    #expect(lines.last?.plain == " the view")
    // A thumbnail that is not a JPEG draws the label alone.
    let broken = MessageRow(
      id: row.id, text: "", isMine: true, sender: nil, time: "14:04", ticks: .clock,
      sequence: nil,
      media: MediaRow(
        isPhoto: true, label: "Photo · 1×1", thumbnail: [1, 2, 3], status: "uploading 5%"))
    let plain = ScreenRenderer.bubble(broken, width: 30, columns: 40).map(\.plain)
    #expect(!plain.joined().contains("▀"))
    #expect(plain.first?.hasSuffix("Photo · 1×1 · uploading 5%") == true)
  }

  @Test func theNewestMessageIsAtTheBottomAboveTheInput() {
    var model = ScreenModel(user: "alice")
    model.mode = .conversation(ConversationID("c1"))
    model.input = "typing"
    let state = ConversationViewState(
      title: "Hiking", rows: [row(1, mine: false, ticks: nil), row(2, mine: true, ticks: .clock)],
      banner: "Waiting for network…", typing: "bob is typing…")
    let frame = ScreenRenderer.frame(
      model: model, list: ConversationListViewState(), conversation: state, size: size
    ).map {
      $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
    #expect(frame[0].contains("Hiking"))
    #expect(frame[0].contains("Waiting for network…"))
    let input = frame.firstIndex { $0.hasPrefix("› typing") }!
    #expect(frame[input - 2].contains("bob is typing…"))
    #expect(frame[input - 3].trimmingCharacters(in: .whitespaces).hasSuffix("14:02 ◷"))
  }

  /// The pinned bar stays on the first line under the header, above what scrolls, and its
  /// text is another party's (control characters never reach the terminal).
  @Test func thePinnedBarStaysAtTheTopAboveTheMessages() {
    var model = ScreenModel(user: "alice")
    model.mode = .conversation(ConversationID("c1"))
    let rows = (1...9).map { row($0, mine: false, ticks: nil) }
    let state = ConversationViewState(
      title: "Hiking", rows: rows,
      pinned: PinnedBar(
        message: rows[0].id, line: "bob: meet \u{1B}[2Jat six", position: 2, count: 3))
    let raw = ScreenRenderer.frame(
      model: model, list: ConversationListViewState(), conversation: state,
      size: RawTerminal.Size(rows: 12, columns: 60))
    #expect(!raw[1].contains("\u{1B}[2J"))
    let frame = raw.map {
      $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
    #expect(frame[1].hasPrefix(" 📌 bob: meet"))
    #expect(frame[1].contains("(2 of 3 · ^O opens)"))
    #expect(frame.dropFirst(2).contains { $0.contains("message 9") })
  }

  /// A draft stands in place of the last message, after a red "Draft:".
  @Test func theListShowsADraftInPlaceOfTheLastMessage() {
    var list = ConversationListViewState()
    list.rows = [
      ConversationListRow(
        id: ConversationID("c1"), title: "Hiking", preview: "bob: lunch?", time: "14:02",
        unreadCount: 0, ticks: nil, draft: "on my w")
    ]
    let frame = ScreenRenderer.frame(
      model: ScreenModel(user: "alice"), list: list, conversation: nil,
      size: RawTerminal.Size(rows: 12, columns: 60)
    ).map {
      $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
    #expect(frame.contains { $0.hasPrefix("    Draft: on my w") })
    #expect(!frame.contains { $0.contains("lunch?") })
  }

  /// The server's refusal text is another party's text too (`chat messages`, `chat send`).
  @Test func aRefusalReasonCannotReachTheTerminal() {
    let refused = Message(
      id: MessageID(rawValue: "01a229f1-b89c-7000-9621-edfefd7b1fb5")!,
      conversationID: ConversationID("c1"), senderID: UserID("alice"), text: "hi",
      sentAt: Date(timeIntervalSince1970: 0), sequence: nil,
      send: .failed(reason: "bad\u{1B}]0;pwned\u{07}"), receipt: .unknown)
    #expect(!refused.statusText.contains("\u{1B}"))
    #expect(!refused.statusText.contains("\u{07}"))
  }

  @Test func controlCharactersFromOthersCannotReachTheTerminal() {
    var model = ScreenModel(user: "alice")
    model.mode = .conversation(ConversationID("c1"))
    // Clear the screen, set the clipboard (OSC 52), ring the bell.
    let hostile = "hi\u{1B}[2J\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{9B}31m"
    let state = ConversationViewState(
      title: "T\u{1B}]0;pwned\u{07}", rows: [row(1, mine: false, ticks: nil, text: hostile)])
    let frame = ScreenRenderer.frame(
      model: model, list: ConversationListViewState(), conversation: state, size: size)
    let escapes = frame.joined().components(separatedBy: "\u{1B}").dropFirst()
    // Every escape left is one of our styles: CSI … m.
    #expect(
      escapes.allSatisfy { $0.range(of: #"^\[[0-9;]*m"#, options: .regularExpression) != nil })
    #expect(!frame.joined().contains("\u{07}"))
    #expect(!frame.joined().unicodeScalars.contains { $0.value == 0x9B })
    #expect(frame.joined().contains("hi\u{FFFD}[2J"))
  }

  @Test func wideCharactersAreMeasuredAsTwoCells() {
    #expect(TextWidth.of("ab") == 2)
    #expect(TextWidth.of("日本") == 4)
    #expect(TextWidth.of("👋🏽") == 2)
    #expect(TextWidth.of("é") == 1)
    #expect(TextWidth.wrap("one two three four", columns: 9) == ["one two", "three", "four"])
    #expect(TextWidth.wrap("abcdefghij", columns: 4) == ["abcd", "efgh", "ij"])
  }
}

@Suite struct KeyDecoderTests {
  @Test func decodesArrowsControlKeysAndUTF8SplitAcrossReads() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B, 0x5B, 0x41, 0x0D, 0x0E]) == [.up, .enter, .control("n")])
    #expect(decoder.decode([0xC3]) == [])
    #expect(decoder.decode([0xA9, 0x7F]) == [.character("é"), .backspace])
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.flush() == [.escape])
    #expect(decoder.decode([0x1B, 0x5B, 0x35, 0x7E]) == [.pageUp])
  }
}
