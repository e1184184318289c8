import ChatDomain
import ChatIdentifiers
import ChatPresentation
import ChatTestSupport
import Foundation
import Support
import Testing

@MainActor
@Suite(.timeLimit(.minutes(3)))
struct ConversationViewModelTests {
  let me = UserID("alice")
  let bob = UserID("bob")
  let chat = ConversationID("c1")
  let utc = TimeFormatter(
    timeZone: TimeZone(identifier: "UTC")!, now: { Date(timeIntervalSince1970: 1_796_036_000) })

  func message(
    _ n: Int, from sender: UserID, sequence: Int?, send: SendState = .sent,
    receipt: ReceiptState = .unknown
  ) -> Message {
    Message(
      id: MessageID(rawValue: String(format: "01900000-0000-7000-8000-%012x", n))!,
      conversationID: chat, senderID: sender, text: "text \(n)",
      sentAt: Date(timeIntervalSince1970: 1_796_036_000 - 3_600 + Double(n) * 60),
      sequence: sequence, send: send, receipt: receipt)
  }

  @Test func rowsShowTicksOnlyOnMyMessagesAsTheSeedDefinesThem() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit([
      message(1, from: bob, sequence: 1),
      message(2, from: me, sequence: 2, receipt: .read),
      message(3, from: me, sequence: 3, receipt: .delivered),
      message(4, from: me, sequence: 4, receipt: .notDelivered),
      message(5, from: me, sequence: 5, receipt: .unknown),
      message(6, from: me, sequence: nil, send: .failed(reason: "refused")),
      message(7, from: me, sequence: nil, send: .sending),
    ])
    try await waitUntil("seven rows", in: model.viewState) { $0.rows.count == 7 }
    let rows = model.viewState.rows
    #expect(rows.map(\.ticks) == [nil, .read, .two, .one, .dimmed, .failed, .clock])
    #expect(rows.map(\.isMine) == [false, true, true, true, true, true, true])
    #expect(rows[0].sender == "bob")
    #expect(rows[1].sender == nil)
    #expect(rows[0].time == "09:54")
  }

  @Test func anEditedMessageSaysSoAndADeletedOneShowsItsTombstone() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let plain = message(1, from: bob, sequence: 1)
    let edited = message(2, from: bob, sequence: 2)
    let deleted = message(3, from: me, sequence: 3)
    repository.emit([
      plain,
      Message(
        id: edited.id, conversationID: chat, senderID: bob, text: "new text",
        sentAt: edited.sentAt, sequence: 2, send: .sent, receipt: .unknown,
        editedAt: edited.sentAt.addingTimeInterval(30)),
      Message(
        id: deleted.id, conversationID: chat, senderID: me, text: "", sentAt: deleted.sentAt,
        sequence: 3, send: .sent, receipt: .read, isDeleted: true),
    ])
    try await waitUntil("three rows", in: model.viewState) { $0.rows.count == 3 }
    let rows = model.viewState.rows
    #expect(rows.map(\.isEdited) == [false, true, false])
    #expect(rows.map(\.isDeleted) == [false, false, true])
    #expect(rows.map(\.text) == ["text 1", "new text", MessageRow.deletedText])
  }

  @Test func aBlockedSendersMessageShowsAsBlockedWithNothingElseOfIt() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let hidden = message(1, from: bob, sequence: 1)
    repository.emit([
      Message(
        id: hidden.id, conversationID: chat, senderID: bob, text: "secret", sentAt: hidden.sentAt,
        sequence: 1, send: .sent, receipt: .unknown,
        reactions: [Reaction(emoji: "👍", count: 1, includesMe: false)], mentions: [me],
        isFromBlockedSender: true),
      message(2, from: me, sequence: 2),
    ])
    try await waitUntil("two rows", in: model.viewState) { $0.rows.count == 2 }
    let rows = model.viewState.rows
    #expect(rows.map(\.text) == [MessageRow.blockedText, "text 2"])
    #expect(rows.map(\.isBlocked) == [true, false])
    #expect(rows[0].reactions.isEmpty && !rows[0].mentionsMe && rows[0].sender == "bob")
    #expect(
      ConversationListViewModel.preview(
        Message(
          id: hidden.id, conversationID: chat, senderID: bob, text: "secret",
          sentAt: hidden.sentAt, sequence: 1, send: .sent, receipt: .unknown,
          isFromBlockedSender: true)) == MessageRow.blockedText)
  }

  @Test func aPhotoShowsItsThumbnailAndMyUploadItsProgressAndADocumentItsNameAndSize()
    async throws
  {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let photo = MessageMedia(
      kind: .image, contentType: "image/jpeg", byteCount: 200_000, width: 1_600, height: 1_200,
      thumbnail: [0xFF, 0xD8, 1], uploadedBytes: 50_000)
    let document = MessageMedia(
      kind: .file, contentType: "application/pdf", byteCount: 3_145_728, fileName: "route.pdf",
      localPath: "/tmp/route.pdf")
    let sending = message(1, from: me, sequence: nil, send: .sending)
    let received = message(2, from: bob, sequence: 2)
    let deleted = message(3, from: bob, sequence: 3)
    repository.emit([
      Message(
        id: sending.id, conversationID: chat, senderID: me, text: "the view",
        sentAt: sending.sentAt, sequence: nil, send: .sending, receipt: .unknown, media: photo),
      Message(
        id: received.id, conversationID: chat, senderID: bob, text: "", sentAt: received.sentAt,
        sequence: 2, send: .sent, receipt: .unknown, media: document),
      Message(
        id: deleted.id, conversationID: chat, senderID: bob, text: "", sentAt: deleted.sentAt,
        sequence: 3, send: .sent, receipt: .unknown, isDeleted: true, media: document),
    ])
    try await waitUntil("three rows", in: model.viewState) { $0.rows.count == 3 }
    let rows = model.viewState.rows
    #expect(rows[0].media?.label == "Photo · 1600×1200")
    #expect(rows[0].media?.thumbnail == [0xFF, 0xD8, 1])
    #expect(rows[0].media?.status == "uploading 25%")
    #expect(rows[0].text == "the view")
    #expect(rows[1].media?.label == "File · route.pdf · 3.0 MB")
    #expect(rows[1].media?.status == "saved here")
    #expect(rows[2].media == nil, "a tombstone shows no media")
  }

  @Test func editAndDeleteActOnMyNewestMessageThatStillStandsAndShowARefusal() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let mine = message(2, from: me, sequence: 2)
    let gone = message(3, from: me, sequence: 3)
    repository.emit([
      message(1, from: bob, sequence: 1), mine,
      Message(
        id: gone.id, conversationID: chat, senderID: me, text: "", sentAt: gone.sentAt,
        sequence: 3, send: .sent, receipt: .read, isDeleted: true),
      message(4, from: bob, sequence: 4),
    ])
    try await waitUntil("four rows", in: model.viewState) { $0.rows.count == 4 }
    #expect(model.viewState.lastEditable?.id == mine.id)
    await model.editNow(mine.id, to: "fixed")
    #expect(repository.edited.map(\.1) == ["fixed"])
    #expect(repository.edited.map(\.0) == [mine.id])
    repository.sendError = .invalidInput("the message was deleted")
    await model.deleteNow(mine.id)
    #expect(model.viewState.alert == "invalid input: the message was deleted")
    #expect(repository.deleted.isEmpty)
    repository.sendError = nil
    await model.deleteNow(mine.id)
    #expect(repository.deleted == [mine.id])
    #expect(model.viewState.alert == nil)
  }

  @Test func aReactionTogglesAddingWhatIsNotMineAndTakingBackWhatIs() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let lunch = message(1, from: bob, sequence: 1)
    repository.emit([
      Message(
        id: lunch.id, conversationID: chat, senderID: bob, text: "lunch?", sentAt: lunch.sentAt,
        sequence: 1, send: .sent, receipt: .unknown,
        reactions: [
          Reaction(emoji: "👍", count: 2, includesMe: true),
          Reaction(emoji: "❤️", count: 1, includesMe: false),
        ])
    ])
    try await waitUntil("one row", in: model.viewState) { $0.rows.count == 1 }
    await model.toggleReaction("👍", on: lunch.id)
    await model.toggleReaction("❤️", on: lunch.id)
    await model.toggleReaction("🎉", on: lunch.id)
    #expect(
      repository.reacted == [
        .init(emoji: "👍", target: lunch.id, remove: true),
        .init(emoji: "❤️", target: lunch.id, remove: false),
        .init(emoji: "🎉", target: lunch.id, remove: false),
      ])
    repository.sendError = .invalidInput("the message was deleted")
    await model.toggleReaction("👍", on: lunch.id)
    #expect(model.viewState.alert == "invalid input: the message was deleted")
  }

  @Test func aQuoteShowsWhatItAnswersAsItIsNowAndNothingOfWhatTheReaderCannotSee() {
    let target = MessageID(rawValue: "01900000-0000-7000-8000-000000000009")!
    func row(_ quote: QuotedMessage.Quote?) -> QuoteRow {
      ConversationViewModel.quoteRow(QuotedMessage(id: target, quote: quote), me: me)
    }
    func quote(
      _ text: String, by sender: UserID, media: MessageMedia.Kind? = nil, deleted: Bool = false
    )
      -> QuotedMessage.Quote
    {
      QuotedMessage.Quote(
        senderID: sender, sequence: 3, text: text, mediaKind: media, isDeleted: deleted)
    }
    #expect(row(quote("lunch?", by: bob)).line == "bob: lunch?")
    #expect(row(quote("lunch?", by: me)).line == "You: lunch?")
    #expect(row(quote("", by: bob, media: .image)).line == "bob: Photo")
    #expect(row(quote("the route", by: bob, media: .file)).line == "bob: File · the route")
    #expect(row(quote("", by: bob, deleted: true)).line == "bob: \(MessageRow.deletedText)")
    #expect(row(nil) == QuoteRow(target: target, author: nil, text: QuoteRow.hiddenText))
  }

  private func unread(_ count: Int, readUpTo: Int) -> ConversationSummary {
    ConversationSummary(
      id: chat, title: "Hiking", memberIDs: [me, bob], lastMessage: nil, unreadCount: count,
      lastActivity: Date(timeIntervalSince1970: 0), readUpTo: readUpTo)
  }

  @Test func theScreenOpensAtTheFirstUnreadWhenMoreAreUnreadThanItShows() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit(unread(60, readUpTo: 40))
    repository.emit((51...100).map { message($0, from: bob, sequence: $0) })
    try await waitUntil("opened at the first unread", in: model.viewState) {
      $0.isAwayFromNewest
    }
    #expect(repository.openedAt == [41])
    // The window around it: "new messages" above the first unread, where it stays.
    repository.emit((16...65).map { message($0, from: bob, sequence: $0) })
    try await waitUntil("the window around it", in: model.viewState) {
      $0.rows.count == 50 && $0.rows.first?.sequence == 16
    }
    #expect(model.viewState.firstUnread == message(41, from: bob, sequence: 41).id)
    repository.emit(unread(0, readUpTo: 65))
    await model.showNewest()
    #expect(repository.openedAt == [41, nil])
    #expect(model.viewState.firstUnread == message(41, from: bob, sequence: 41).id)
    #expect(model.viewState.isAwayFromNewest == false)
  }

  @Test func openingAtTheFirstUnreadOfflineStaysAtTheNewestWithoutAnAlert() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    repository.sendError = .offline
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit(unread(60, readUpTo: 40))
    repository.emit((51...100).map { message($0, from: bob, sequence: $0) })
    try await waitUntil("fifty rows", in: model.viewState) { $0.rows.count == 50 }
    // The automatic open asked and failed: nothing moved, nothing to say.
    repository.emit((52...101).map { message($0, from: bob, sequence: $0) })
    try await waitUntil("the newest row", in: model.viewState) { $0.rows.last?.sequence == 101 }
    #expect(model.viewState.alert == nil)
    #expect(model.viewState.isAwayFromNewest == false)
  }

  @Test func aFewUnreadShowTheDividerWithoutMovingAndNoneShowNoDivider() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit(unread(2, readUpTo: 98))
    repository.emit((51...100).map { message($0, from: bob, sequence: $0) })
    try await waitUntil("the divider", in: model.viewState) { $0.firstUnread != nil }
    #expect(model.viewState.firstUnread == message(99, from: bob, sequence: 99).id)
    #expect(repository.openedAt.isEmpty)
    let read = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    #expect(read.viewState.firstUnread == nil)
  }

  @Test func aQuoteOpensTheConversationAtWhatItAnswersUnlessShownOrUnseen() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let shown = message(60, from: bob, sequence: 60)
    func reply(_ n: Int, to target: MessageID, sequence: Int?) -> Message {
      Message(
        id: message(n, from: bob, sequence: n).id, conversationID: chat, senderID: bob,
        text: "re", sentAt: shown.sentAt, sequence: n, send: .sent, receipt: .unknown,
        replyTo: QuotedMessage(
          id: target,
          quote: sequence.map {
            QuotedMessage.Quote(
              senderID: bob, sequence: $0, text: "old", mediaKind: nil, isDeleted: false)
          }))
    }
    let far = message(7, from: bob, sequence: 7).id
    let hidden = message(3, from: bob, sequence: 3).id
    repository.emit([
      shown, reply(61, to: shown.id, sequence: 60), reply(62, to: far, sequence: 7),
      reply(63, to: hidden, sequence: nil),
    ])
    try await waitUntil("four rows", in: model.viewState) { $0.rows.count == 4 }
    #expect(await model.openQuote(of: message(61, from: bob, sequence: 61).id) == false)
    #expect(repository.openedAt.isEmpty)
    #expect(await model.openQuote(of: message(62, from: bob, sequence: 62).id))
    #expect(repository.openedAt == [7])
    #expect(await model.openQuote(of: message(63, from: bob, sequence: 63).id) == false)
    #expect(model.viewState.alert == "That message cannot be shown here.")
  }

  /// The pinned bar shows one pin at a time, newest first; a tap opens at it and moves on,
  /// round again after the oldest; a pin this device does not hold says so.
  @Test func thePinnedBarOpensAtEachPinInTurn() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let mine = message(5, from: me, sequence: 5)
    let bobs = message(3, from: bob, sequence: 3)
    let notHeld = message(9, from: bob, sequence: 9).id
    func summary(_ pinned: [Pin]) -> ConversationSummary {
      ConversationSummary(
        id: chat, title: "Hiking", memberIDs: [me, bob], lastMessage: nil, unreadCount: 0,
        lastActivity: mine.sentAt, pinned: pinned)
    }
    repository.emit([bobs, mine])
    repository.emit(summary([]))
    try await waitUntil("two rows", in: model.viewState) { $0.rows.count == 2 }
    #expect(model.viewState.pinned == nil)
    repository.emit(
      summary([
        Pin(id: mine.id, sequence: 5, text: "meet at six", senderID: me),
        Pin(id: bobs.id, sequence: 3, text: "", senderID: bob),
        Pin(id: notHeld, sequence: nil),
      ]))
    try await waitUntil("the bar", in: model.viewState) { $0.pinned != nil }
    #expect(
      model.viewState.pinned
        == PinnedBar(message: mine.id, line: "You: meet at six", position: 1, count: 3))
    await model.openPinned()
    #expect(repository.openedAt == [5])
    #expect(
      model.viewState.pinned
        == PinnedBar(message: bobs.id, line: "bob: Photo or file", position: 2, count: 3))
    await model.openPinned()
    #expect(model.viewState.pinned?.line == "Pinned message")
    await model.openPinned()
    #expect(model.viewState.alert == "That pinned message is not on this device yet.")
    #expect(repository.openedAt == [5, 3])
    #expect(model.viewState.pinned?.position == 1)
    // A pinned message unpins; one that is not pins.
    await model.togglePin(mine.id)
    await model.togglePin(message(4, from: bob, sequence: 4).id)
    #expect(repository.pinned.map(\.1) == [true, false])
  }

  /// The screen opens with my draft (typed on any device of mine) to put back in the input,
  /// once; what I type is saved as my draft.
  @Test func theScreenRestoresMyDraftOnceAndSavesWhatITypes() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let answered = message(3, from: bob, sequence: 3)
    repository.emit(
      ConversationSummary(
        id: chat, title: "Hiking", memberIDs: [me, bob], lastMessage: nil, unreadCount: 0,
        lastActivity: answered.sentAt, draft: MessageDraft(text: "yes at", replyTo: answered.id)))
    try await waitUntil("the title", in: model.viewState) { $0.title == "Hiking" }
    #expect(model.takeDraftToRestore() == MessageDraft(text: "yes at", replyTo: answered.id))
    #expect(model.takeDraftToRestore() == nil)
    await model.draftChanged("yes at one", replyTo: answered.id)
    #expect(repository.drafts == [MessageDraft(text: "yes at one", replyTo: answered.id)])
  }

  @Test func myMessageInAGroupSaysReadByNOfM() {
    let none = GroupReceipt(readBy: [], deliveredTo: [], memberCount: 3)
    let delivered = GroupReceipt(readBy: [], deliveredTo: [bob], memberCount: 3)
    let read = GroupReceipt(readBy: [bob, UserID("carol")], deliveredTo: [bob], memberCount: 3)
    #expect(ConversationViewModel.line(for: none) == nil)
    #expect(ConversationViewModel.line(for: delivered) == "delivered to 1 of 3")
    #expect(ConversationViewModel.line(for: read) == "read by 2 of 3")
  }

  @Test func membersAndTitleChangesReadAsLines() {
    let carol = UserID("carol")
    let dave = UserID("dave")
    func line(_ event: ConversationEvent, by sender: UserID) -> String {
      ConversationViewModel.line(for: event, by: sender, me: me)
    }
    #expect(line(.membersChanged(added: [dave], removed: []), by: carol) == "carol added dave")
    #expect(line(.membersChanged(added: [], removed: [bob]), by: bob) == "bob left")
    #expect(line(.membersChanged(added: [], removed: [bob]), by: me) == "You removed bob")
    #expect(line(.membersChanged(added: [me], removed: []), by: carol) == "carol added you")
    #expect(
      line(.titleChanged("Sunday hike"), by: carol) == "carol named the conversation “Sunday hike”")
  }

  /// A screen left open over midnight: the next change of any kind (here someone typing)
  /// shows yesterday's times as yesterday's.
  @Test func timesAreRedrawnAfterMidnightWhateverChanges() async throws {
    let now = LockedDate(Date(timeIntervalSince1970: 1_796_036_000))
    let formatter = TimeFormatter(timeZone: TimeZone(identifier: "UTC")!, now: { now.value })
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: formatter)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit([message(1, from: bob, sequence: 1)])
    try await waitUntil("bob's message", in: model.viewState) { !$0.rows.isEmpty }
    #expect(model.viewState.rows.map(\.time) == ["09:54"])
    // Monday 2026-11-30 09:54 seen from Tuesday: the weekday and the time.
    now.value = Date(timeIntervalSince1970: 1_796_036_000 + 86_400)
    repository.emitTyping([bob])
    try await waitUntil("bob typing", in: model.viewState) { $0.typing != nil }
    #expect(model.viewState.rows.map(\.time) == ["Mon 09:54"])
  }

  /// Every connection state, each one differing from the one before in what the banner says,
  /// so a wait for the banner to change shows the state was applied.
  @Test func theBannerSaysWaitingForNetworkOnlyWhileOffline() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    #expect(model.viewState.banner == nil)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let steps: [(state: ConnectionState, banner: String?)] = [
      (.waitingForNetwork, "Waiting for network…"),
      (.connected, nil),
      (.connecting, "Connecting…"),
      (.waitingForNetwork, "Waiting for network…"),
      (.idle, nil),
      (.signedOut, "Signed out: sign in again"),
      (.connected, nil),
    ]
    var shown: String? = nil
    for step in steps {
      repository.emit(step.state)
      try await waitUntil("the banner to change for \(step.state)", in: model.viewState.banner) {
        [shown] in $0 != shown
      }
      #expect(model.viewState.banner == step.banner, "while \(step.state)")
      shown = model.viewState.banner
    }
  }

  @Test func titleAndTypingComeFromTheirOwnStreams() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    repository.emit(
      ConversationSummary(
        id: chat, title: "Hiking", memberIDs: [me, bob], lastMessage: nil, unreadCount: 0,
        lastActivity: Date()))
    repository.emitTyping([bob])
    try await waitUntil("the title and someone typing", in: model.viewState) {
      $0.title == "Hiking" && $0.typing != nil
    }
    #expect(model.viewState.typing == "bob is typing…")
  }

  @Test func historyGoesLoadingThenIdleThenBeginning() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    repository.olderAnswers = [.success(true), .success(false)]
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    repository.olderGate = gate
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let first = Task { await model.onTopReached() }
    try await waitUntil("history loading", in: model.viewState.history) { $0 == .loading }
    // A second scroll to the top while loading asks nothing more.
    await model.onTopReached()
    #expect(repository.olderCalls == 1)
    open.yield()
    await first.value
    repository.olderGate = nil
    #expect(model.viewState.history == .idle)
    await model.onTopReached()
    #expect(model.viewState.history == .beginning)
    await model.onTopReached()
    #expect(model.viewState.history == .beginning)
  }

  @Test func aFailedHistoryLoadSaysWhyAndCanBeTriedAgain() async {
    let repository = FakeMessageRepository(currentUserID: me)
    repository.olderAnswers = [.failure(.offline), .success(true)]
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    await model.onTopReached()
    #expect(model.viewState.history == .failed(ChatError.offline.description))
    await model.onTopReached()
    #expect(model.viewState.history == .idle)
  }

  @Test func seeingAMessageMarksReadUpToTheNewestSequenceAtOrBeforeIt() async throws {
    let repository = FakeMessageRepository(currentUserID: me)
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let pending = message(3, from: me, sequence: nil, send: .sending)
    repository.emit([
      message(1, from: bob, sequence: 1), message(2, from: bob, sequence: 2), pending,
    ])
    try await waitUntil("three rows", in: model.viewState) { $0.rows.count == 3 }
    model.onNewestVisible(pending.id)
    #expect(repository.markedRead == [2])
  }

  @Test func sendingBadInputShowsWhyAndSendsNothing() async {
    let repository = FakeMessageRepository(currentUserID: me)
    repository.sendError = .invalidInput("the message is empty")
    let model = ConversationViewModel(
      conversation: chat, sources: repository.sources, formatter: utc)
    await model.sendNow("   ")
    #expect(model.viewState.alert == "invalid input: the message is empty")
    #expect(repository.sent.isEmpty)
    repository.sendError = nil
    await model.sendNow("hello")
    #expect(model.viewState.alert == nil)
    #expect(repository.sent == ["hello"])
  }
}

@MainActor
@Suite(.timeLimit(.minutes(3)))
struct ConversationListViewModelTests {
  let me = UserID("alice")
  let utc = TimeFormatter(
    timeZone: TimeZone(identifier: "UTC")!, now: { Date(timeIntervalSince1970: 1_796_000_000) })

  final class FakeList: ConversationListRepository, Sendable {
    let pair = AsyncStream.makeStream(of: [ConversationSummary].self)
    private let result = Locked<Result<LocalSearch, ChatError>>(
      .success(LocalSearch(hits: [], mayBeIncomplete: false)))
    private let server = Locked<[ServerSearch]>([])
    /// The server's pages, in the order `searchServer` hands them out.
    var serverPages: [ServerSearch] {
      get { server.value }
      set { server.withLock { $0 = newValue } }
    }
    private let cursors = Locked<[String?]>([])
    /// The `before` of each `searchServer` call.
    var serverCursors: [String?] { cursors.value }
    var searchResult: Result<LocalSearch, ChatError> {
      get { result.value }
      set { result.withLock { $0 = newValue } }
    }
    func conversations() -> AsyncStream<[ConversationSummary]> { pair.stream }
    func createConversation(title: String, memberIDs: [UserID]) async throws(ChatError)
      -> ConversationID
    { throw .offline }
    func changeMembers(in conversation: ConversationID, add: [UserID], remove: [UserID])
      async throws(ChatError)
    { throw .offline }
    func rename(_ conversation: ConversationID, to title: String) async throws(ChatError) {
      throw .offline
    }
    func mute(_ conversation: ConversationID, until: Date?, mentionsPush: Bool)
      async throws(ChatError)
    {
      throw .offline
    }
    func search(_ query: String, limit: Int) async throws(ChatError) -> LocalSearch {
      try searchResult.get()
    }
    func searchServer(_ query: String, limit: Int, before: String?) async throws(ChatError)
      -> ServerSearch
    {
      cursors.withLock { $0.append(before) }
      return server.withLock {
        $0.isEmpty ? ServerSearch(hits: [], nextCursor: nil) : $0.removeFirst()
      }
    }
    func conversation(_ conversation: ConversationID) -> AsyncStream<ConversationSummary?> {
      AsyncStream { _ in }
    }
  }

  /// The list's screen over `list`, the other promises from the fake repository.
  func model(over list: FakeList) -> ConversationListViewModel {
    let others = FakeMessageRepository(currentUserID: me)
    return ConversationListViewModel(
      sources: ChatSources(
        me: me, messages: others, conversations: list, typing: others, connection: others,
        outbox: others),
      formatter: utc)
  }

  @Test func rowsShowUnreadCountsAndWhoWroteLast() async throws {
    let list = FakeList()
    let model = model(over: list)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let chat = ConversationID("c1")
    let mine = Message(
      id: MessageID(UUID()), conversationID: chat, senderID: me, text: "on my way",
      sentAt: Date(timeIntervalSince1970: 1_796_000_000), sequence: 4, send: .sent,
      receipt: .delivered)
    list.pair.continuation.yield([
      ConversationSummary(
        id: chat, title: "Hiking", memberIDs: [me], lastMessage: mine, unreadCount: 3,
        lastActivity: mine.sentAt)
    ])
    try await waitUntil("a row", in: model.viewState) { !$0.rows.isEmpty }
    let row = model.viewState.rows[0]
    #expect(row.preview == "You: on my way")
    #expect(row.unreadCount == 3)
    #expect(row.ticks == .two)
  }

  @Test func aPhotoWithoutACaptionIsPreviewedAsAPhoto() async throws {
    let list = FakeList()
    let model = model(over: list)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let chat = ConversationID("c1")
    let photo = Message(
      id: MessageID(UUID()), conversationID: chat, senderID: UserID("bob"), text: "",
      sentAt: Date(timeIntervalSince1970: 1_796_000_000), sequence: 4, send: .sent,
      receipt: .unknown,
      media: MessageMedia(kind: .image, contentType: "image/jpeg", byteCount: 1))
    list.pair.continuation.yield([
      ConversationSummary(
        id: chat, title: "Hiking", memberIDs: [me], lastMessage: photo, unreadCount: 1,
        lastActivity: photo.sentAt)
    ])
    try await waitUntil("a row", in: model.viewState) { !$0.rows.isEmpty }
    #expect(model.viewState.rows[0].preview == "bob: Photo")
  }

  @Test func aMutedConversationIsDimmedAndOutsideTheTotalUnread() async throws {
    let list = FakeList()
    let model = model(over: list)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    let now = utc.now()
    func summary(_ id: String, unread: Int, mutedUntil: Date?) -> ConversationSummary {
      ConversationSummary(
        id: ConversationID(id), title: id, memberIDs: [me], lastMessage: nil,
        unreadCount: unread, lastActivity: now, mutedUntil: mutedUntil)
    }
    list.pair.continuation.yield([
      summary("c1", unread: 3, mutedUntil: nil),
      summary("c2", unread: 5, mutedUntil: .distantFuture),
      summary("c3", unread: 7, mutedUntil: now.addingTimeInterval(-60)),
    ])
    try await waitUntil("three rows", in: model.viewState) { $0.rows.count == 3 }
    #expect(model.viewState.rows.map(\.isMuted) == [false, true, false], "a mute that ended")
    #expect(model.viewState.totalUnread == 10)
  }

  /// A draft shows in place of the last message ("Draft: …"); a reply's draft without text says
  /// it is a reply.
  @Test func aDraftShowsInPlaceOfTheLastMessage() async throws {
    let list = FakeList()
    let model = model(over: list)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    func summary(_ id: String, draft: MessageDraft?) -> ConversationSummary {
      ConversationSummary(
        id: ConversationID(id), title: id, memberIDs: [me], lastMessage: nil, unreadCount: 0,
        lastActivity: utc.now(), draft: draft)
    }
    let answered = MessageID(rawValue: "01900000-0000-7000-8000-000000000001")!
    list.pair.continuation.yield([
      summary("c1", draft: MessageDraft(text: "on my w")),
      summary("c2", draft: MessageDraft(text: "", replyTo: answered)),
      summary("c3", draft: nil),
    ])
    try await waitUntil("three rows", in: model.viewState) { $0.rows.count == 3 }
    #expect(model.viewState.rows.map(\.draft) == ["on my w", "↩ reply", nil])
  }

  func hit(_ n: Int, _ text: String) -> SearchHit {
    SearchHit(
      messageID: MessageID(rawValue: String(format: "01900000-0000-7000-8000-%012x", n))!,
      conversationID: ConversationID("c1"), conversationTitle: "Hike", senderID: UserID("bob"),
      sentAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), sequence: n,
      snippet: Snippet(parts: [Snippet.Part(text: text, isMatch: true)]))
  }

  @Test func anIncompleteLocalSearchOffersOlderMessagesFromTheServerPageByPage() async {
    let list = FakeList()
    list.searchResult = .success(LocalSearch(hits: [hit(9, "trail")], mayBeIncomplete: true))
    list.serverPages = [
      ServerSearch(hits: [hit(9, "trail"), hit(4, "trail map")], nextCursor: "c-1"),
      ServerSearch(hits: [hit(2, "old trail")], nextCursor: nil),
    ]
    let model = model(over: list)
    await model.search("trail")
    #expect(model.viewState.search?.offersOlder == true)
    #expect(model.viewState.search?.older == nil)
    await model.searchOlder()
    #expect(
      model.viewState.search?.older?.map(\.snippet.text) == ["trail map"],
      "a hit the device shows already is not repeated")
    #expect(model.viewState.search?.hasMoreOlder == true)
    #expect(model.viewState.search?.offersOlder == false)
    await model.searchOlder()
    #expect(model.viewState.search?.older?.map(\.snippet.text) == ["trail map", "old trail"])
    #expect(model.viewState.search?.hasMoreOlder == false)
    #expect(list.serverCursors == [nil, "c-1"])
    await model.searchOlder()
    #expect(list.serverCursors.count == 2, "no page after the last")
  }

  @Test func theOutboxBannerCountsWhatWaitsAndEachRowSaysWhereItStands() async throws {
    let list = FakeList()
    let others = FakeMessageRepository(currentUserID: me)
    let model = ConversationListViewModel(
      sources: ChatSources(
        me: me, messages: others, conversations: list, typing: others, connection: others,
        outbox: others),
      formatter: utc)
    let watching = Task { await model.onAppear() }
    defer { watching.cancel() }
    func entry(_ n: Int, _ state: OutboxEntry.State, attempts: Int = 0) -> OutboxEntry {
      OutboxEntry(
        id: hit(n, "").messageID, conversationID: ConversationID("c1"), conversationTitle: "Hike",
        kind: .message, text: "message \(n)", state: state,
        createdAt: Date(timeIntervalSince1970: 1_796_000_000), attempts: attempts,
        nextAttempt: Date(timeIntervalSince1970: 1_796_000_060), lastError: "offline",
        mediaBytesLeft: nil)
    }
    others.yieldOutbox([
      entry(1, .waiting, attempts: 3), entry(2, .notSent), entry(3, .failed(reason: "too long")),
    ])
    try await waitUntil("three rows waiting", in: model.viewState) { $0.outbox.rows.count == 3 }
    #expect(model.viewState.outbox.banner == "3 messages waiting")
    #expect(
      model.viewState.outbox.rows.map(\.status) == [
        "waiting · 3 attempt(s) · last: offline · next 00:54", "not sent — send now?",
        "refused: too long",
      ])
    #expect(model.viewState.outbox.rows.map(\.needsChoice) == [false, true, true])
    await model.discard(hit(2, "").messageID)
    #expect(others.discarded == [hit(2, "").messageID])
    others.yieldOutbox([])
    try await waitUntil("nothing waits", in: model.viewState) { $0.outbox.rows.isEmpty }
    #expect(model.viewState.outbox.banner == nil)
  }

  @Test func aCompleteLocalSearchDoesNotOfferOlderMessages() async {
    let list = FakeList()
    list.searchResult = .success(LocalSearch(hits: [hit(1, "trail")], mayBeIncomplete: false))
    let model = model(over: list)
    await model.search("trail")
    #expect(model.viewState.search?.offersOlder == false)
  }

  @Test func aSearchErrorIsShownNotThrown() async {
    let list = FakeList()
    list.searchResult = .failure(
      .invalidInput("type at least one letter, digit or emoji to search"))
    let model = model(over: list)
    await model.search("!!")
    #expect(
      model.viewState.search?.error
        == "invalid input: type at least one letter, digit or emoji to search")
    await model.search("")
    #expect(model.viewState.search == nil)
  }
}

/// A date the test moves, read by the formatter's clock.
final class LockedDate: Sendable {
  private let date: Locked<Date>

  init(_ date: Date) { self.date = Locked(date) }

  var value: Date {
    get { date.value }
    set { date.withLock { $0 = newValue } }
  }
}
