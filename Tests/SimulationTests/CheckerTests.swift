import ChatAPI
import ChatData
import ChatDataInspection
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation
import Hashing
import Support
import Testing

@testable import ChatSimulation

/// The checker on made-up histories: each invariant fires on the history that breaks it, and
/// stays quiet on one that keeps it. (The known-bug tests show the same for bugs put back in a
/// real engine.)
@Suite struct CheckerTests {
  static let alice = UserID("alice")
  static let bob = UserID("bob")
  static let chat = ConversationID("c-ab")
  static let other = ConversationID("c-abc")
  static let id1 = "01a229f1-b89c-7000-9621-edfefd7b1fb5"
  static let id2 = "01a229f1-b89c-7001-af47-11930586e712"

  /// A checker over a history the test writes, with the simulation it labels things by. Its
  /// conversations have alice and bob as members; every send and message is alice's unless
  /// said otherwise.
  final class Scenario {
    let simulation: Simulation
    let checker: Checker

    init() throws {
      simulation = try Simulation(
        seed: 1, options: SimulationOptions(profile: .quick, folder: NSTemporaryDirectory()))
      checker = Checker(history: simulation.history)
    }

    deinit { try? FileManager.default.removeItem(atPath: simulation.folder) }

    var violations: [Violation.Invariant] { checker.violations.map(\.invariant) }

    /// A device saved `text` as sending under `id`.
    func sent(_ text: String, as id: String, in conversation: ConversationID = chat) {
      let number = simulation.history.invokeSend(
        device: "alice.phone#1", user: alice, conversation: conversation, text: text)
      simulation.history.sendSaved(number, as: MessageID(rawValue: id)!)
    }

    /// The server's log is `messages` (id, sequence, text) in each conversation; alice has
    /// seen all of it, bob from `bobFrom` on; `finals` are what devices hold at the end.
    func checkEnd(
      _ log: [ConversationID: [(String, Int, String)]], sender: UserID = alice,
      bobFrom: Int = 1, finals: [FinalView] = []
    ) {
      let logged = log.keys.sorted().map { conversation in
        let items = log[conversation]!.map { id, sequence, text in
          Item(
            id: "server-\(sequence)", clientMessageId: id,
            conversationId: conversation.rawValue, senderId: sender.rawValue, text: text,
            sequence: sequence, sentAt: "2026-11-30T14:02:03.123Z")
        }
        return LoggedConversation(
          id: conversation, members: [alice, bob], messages: items,
          views: [
            alice: .init(
              membership: .member, visible: [VisibleRange(first: 1, last: nil)], items: items),
            bob: .init(
              membership: .member, visible: [VisibleRange(first: bobFrom, last: nil)],
              items: items.filter { $0.sequence >= bobFrom }),
          ])
      }
      checker.checkEnd(log: logged, finals: finals, simulation: simulation)
    }

    /// What `device` holds at the end: its screen of the chat shows `shown` (id, sequence),
    /// its rows are those, and it stands in the chat as `standing`, seeing `visible`.
    /// With `floor`, its history of the chat begins there (pruned below), and its server
    /// search found `found`.
    func final(
      _ device: String, shows shown: [(String, Int)], standing: Participation = .member,
      visible: [(first: Int, last: Int?)] = [(1, nil)], floor: Int? = nil,
      found: Set<String> = []
    ) -> FinalView {
      let simDevice = SimDevice(name: device, path: "/nonexistent", clockOffset: .zero)
      let incarnation = Incarnation(
        name: device + "#1", executor: simulation.world.makeExecutor(device))
      let messages = shown.map { id, sequence in
        Message(
          id: MessageID(rawValue: id)!, conversationID: chat, senderID: alice,
          text: "sim \(sequence)",
          sentAt: Date(timeIntervalSince1970: 0), sequence: sequence, send: .sent,
          receipt: .unknown)
      }
      var final = FinalView(
        device: simDevice, incarnation: incarnation, views: [chat: messages], outbox: 0,
        held: messages.map {
          HeldMessage(
            conversationID: chat, messageID: $0.id, senderID: alice, sequence: $0.sequence)
        }, listed: [chat],
        conversations: [
          HeldConversation(
            id: chat, participation: standing, visible: visible, historyFloor: floor)
        ])
      final.foundOnServer = found
      return final
    }

    /// Lets `delay` of simulated time pass.
    func wait(_ delay: Duration) {
      let world = simulation.world
      _ = world.schedule(after: delay) {}
      world.run(deadline: world.now + delay)
    }

    /// alice.phone's screen of the chat shows her unsent `id` as `send`.
    func showUnsent(_ id: String, _ send: SendState, deleted: Bool = false) {
      let simDevice = SimDevice(name: "alice.phone", path: "/nonexistent", clockOffset: .zero)
      let incarnation = Incarnation(
        name: "alice.phone#1", executor: simulation.world.makeExecutor("alice.phone"))
      let message = Message(
        id: MessageID(rawValue: id)!, conversationID: chat, senderID: alice, text: "sim 1",
        sentAt: Date(timeIntervalSince1970: 0), sequence: nil, send: send, receipt: .unknown,
        isDeleted: deleted)
      checker.observe(
        [message], in: chat, device: simDevice, incarnation: incarnation, simulation: simulation)
    }

    /// `device`'s screen of the chat shows `messages` (id, sequence, text, receipt).
    func show(_ messages: [(String, Int?, String, ReceiptState)], on device: String) {
      if simulation.members(of: chat) == nil {
        simulation.conversations.append(
          Simulation.ConversationInfo(
            id: chat, label: "ab", members: [alice, bob], everMembers: [alice, bob]))
      }
      let simDevice = SimDevice(name: device, path: "/nonexistent", clockOffset: .zero)
      let incarnation = Incarnation(
        name: device + "#1", executor: simulation.world.makeExecutor(device))
      let shown = messages.map { id, sequence, text, receipt in
        Message(
          id: MessageID(rawValue: id)!, conversationID: chat, senderID: alice, text: text,
          sentAt: Date(timeIntervalSince1970: 0), sequence: sequence,
          send: sequence == nil ? .sending : .sent, receipt: receipt)
      }
      checker.observe(
        shown, in: chat, device: simDevice, incarnation: incarnation, simulation: simulation)
    }
  }

  // MARK: - The end of a run

  @Test func aLogThatKeepsEveryRuleBreaksNone() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.sent("sim 2", as: Self.id2)
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]])
    #expect(s.violations == [])
  }

  /// A message with media the server accepted names an object the store holds whole, with
  /// the bytes its sender picked.
  @Test func aMessageWhoseObjectIsMissingOrOtherBytesBreaksMedia() throws {
    let picked: [UInt8] = Array("the bytes alice picked".utf8)
    for stored in [nil, Array("other bytes".utf8), picked] {
      let s = try Scenario()
      s.sent("sim 1", as: Self.id1)
      let id = MessageID(rawValue: Self.id1)!
      s.simulation.history.mediaSaved(id, sha256: Hex.encode(Crypto.sha256(picked)))
      if let stored {
        _ = s.simulation.server.objects.handle(
          ObjectRequest(method: "PUT", url: SimObjectStore.url("media/k1"), body: stored))
      }
      let item = Item(
        id: "server-1", clientMessageId: Self.id1, conversationId: Self.chat.rawValue,
        senderId: Self.alice.rawValue, text: "sim 1", sequence: 1,
        sentAt: "2026-11-30T14:02:03.123Z",
        media: Media(
          key: "k1", kind: .file, contentType: "application/pdf", byteCount: picked.count,
          sha256: Hex.encode(Crypto.sha256(picked)), fileName: "a.pdf"))
      let logged = LoggedConversation(
        id: Self.chat, members: [Self.alice, Self.bob], messages: [item],
        views: [
          Self.alice: .init(
            membership: .member, visible: [VisibleRange(first: 1, last: nil)], items: [item])
        ])
      s.checker.checkEnd(log: [logged], finals: [], simulation: s.simulation)
      #expect(
        s.violations.contains(.media) == (stored != picked), "stored: \(String(describing: stored))"
      )
    }
  }

  /// A download that returns holds the bytes its sender picked.
  @Test func aDownloadOfOtherBytesBreaksMedia() throws {
    let s = try Scenario()
    let id = MessageID(rawValue: Self.id1)!
    let picked: [UInt8] = Array("picked".utf8)
    s.simulation.history.mediaSaved(id, sha256: Hex.encode(Crypto.sha256(picked)))
    let path = NSTemporaryDirectory() + "checker-download-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    FileManager.default.createFile(atPath: path, contents: Data(picked))
    s.checker.downloaded(id, at: path, on: "bob.phone#1")
    #expect(s.violations == [])
    FileManager.default.createFile(atPath: path, contents: Data("spoiled".utf8))
    s.checker.downloaded(id, at: path, on: "bob.phone#1")
    #expect(s.violations == [.media])
  }

  /// One outbox per conversation: a send written after another was saved must be accepted
  /// after it.
  @Test func sendsAcceptedInAnotherOrderThanWrittenAreOutOfOrder() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.sent("sim 2", as: Self.id2)
    s.checkEnd([Self.chat: [(Self.id2, 1, "sim 2"), (Self.id1, 2, "sim 1")]])
    #expect(s.violations == [.sendOrder])
  }

  /// Sends written side by side (the second invoked before the first returned) may go in
  /// either order.
  @Test func sendsWrittenSideBySideMayGoInEitherOrder() throws {
    let s = try Scenario()
    let history = s.simulation.history
    let first = history.invokeSend(
      device: "alice.phone#1", user: Self.alice, conversation: Self.chat, text: "sim 1")
    let second = history.invokeSend(
      device: "alice.phone#1", user: Self.alice, conversation: Self.chat, text: "sim 2")
    history.sendSaved(second, as: MessageID(rawValue: Self.id2)!)
    history.sendSaved(first, as: MessageID(rawValue: Self.id1)!)
    s.checkEnd([Self.chat: [(Self.id2, 1, "sim 2"), (Self.id1, 2, "sim 1")]])
    #expect(s.violations == [])
  }

  @Test func aHoleInTheSequencesIsAGap() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.sent("sim 2", as: Self.id2)
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 3, "sim 2")]])
    #expect(s.violations == [.gap])
  }

  @Test func oneIDOfOneSenderInTwoConversationsIsADuplicate() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1, in: Self.chat)
    s.sent("sim 2", as: Self.id1, in: Self.other)
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1")], Self.other: [(Self.id1, 1, "sim 2")]])
    #expect(s.violations == [.duplicated])
  }

  @Test func anAcknowledgedMessageMissingFromTheLogIsLost() throws {
    let s = try Scenario()
    s.simulation.history.acknowledged(
      History.Acknowledgement(
        conversation: Self.chat, clientMessageID: Self.id1, sender: "alice", sequence: 1))
    s.checkEnd([Self.chat: []])
    #expect(s.violations == [.lost])
  }

  @Test func aSavedSendTheServerNeverGotIsLost() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.checkEnd([Self.chat: []])
    #expect(s.violations == [.lost])
  }

  @Test func aMessageNobodySentIsUnexpected() throws {
    let s = try Scenario()
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim from nowhere")]], sender: Self.bob)
    #expect(s.violations == [.unexpected])
  }

  // MARK: - What screens show

  @Test func twoDevicesShowingTwoMessagesAtOneSequenceIsASequenceChange() throws {
    let s = try Scenario()
    s.show([(Self.id1, 1, "sim 1", .unknown)], on: "alice.phone")
    s.show([(Self.id2, 1, "sim 2", .unknown)], on: "bob.phone")
    #expect(s.violations == [.sequenceChanged])
  }

  @Test func aScreenOutOfSequenceOrderIsMisordered() throws {
    let s = try Scenario()
    s.show([(Self.id2, 2, "sim 2", .unknown), (Self.id1, 1, "sim 1", .unknown)], on: "bob.phone")
    #expect(s.violations == [.misordered])
  }

  @Test func aConversationShownToANonMemberIsForeign() throws {
    let s = try Scenario()
    s.show([(Self.id1, 1, "sim 1", .unknown)], on: "carol.phone")
    s.sent("sim 1", as: Self.id1)
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1")]])
    #expect(s.violations == [.foreign])
  }

  /// API.md: a member sees what was written while it was a member, and nothing else. bob was
  /// added at 2; a screen of his showing 1 breaks that, one showing 2 does not.
  @Test func anItemShownOutsideItsUsersVisibleRangesIsInvisible() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.sent("sim 2", as: Self.id2)
    s.show([(Self.id2, 2, "sim 2", .unknown)], on: "bob.phone")
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]], bobFrom: 2)
    #expect(s.violations == [])
    s.show([(Self.id1, 1, "sim 1", .unknown), (Self.id2, 2, "sim 2", .unknown)], on: "bob.phone")
    s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]], bobFrom: 2)
    #expect(s.violations == [.invisible])
  }

  /// A row held outside the visible ranges breaks the rule too, even if no screen showed it.
  @Test func aRowHeldOutsideItsUsersVisibleRangesIsInvisible() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.sent("sim 2", as: Self.id2)
    let log = [Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]]
    let bobs = s.final("bob.phone", shows: [(Self.id2, 2)], visible: [(2, nil)])
    s.checkEnd(log, bobFrom: 2, finals: [bobs])
    #expect(s.violations == [])
    let holding = s.final(
      "bob.phone", shows: [(Self.id1, 1), (Self.id2, 2)], visible: [(2, nil)])
    s.checkEnd(log, bobFrom: 2, finals: [holding])
    #expect(s.violations.contains(.invisible))
  }

  /// A device that stands elsewhere than the server says (still a member, or seeing other
  /// ranges) breaks the membership rule.
  /// The server's word on who sees what is checked against its own members items: bob,
  /// added at 2 to a chat created with alice alone, sees from 2.
  @Test func rangesTheMembersItemsDoNotMakeBreakMembership() throws {
    func verdict(bobFrom: Int) throws -> [Violation.Invariant] {
      let s = try Scenario()
      s.simulation.conversations.append(
        Simulation.ConversationInfo(
          id: Self.chat, label: "ab", members: [Self.alice, Self.bob],
          everMembers: [Self.alice, Self.bob], initialMembers: [Self.alice]))
      s.sent("sim 1", as: Self.id1)
      let items = [
        Item(
          id: "server-1", clientMessageId: Self.id1, conversationId: Self.chat.rawValue,
          senderId: "alice", text: "sim 1", sequence: 1, sentAt: "2026-11-30T14:02:03.123Z"),
        Item(
          id: "server-2", clientMessageId: Self.id2, conversationId: Self.chat.rawValue,
          senderId: "alice", text: "", sequence: 2, sentAt: "2026-11-30T14:02:04.123Z",
          kind: .members, added: ["bob"], removed: []),
      ]
      let logged = LoggedConversation(
        id: Self.chat, members: [Self.alice, Self.bob], messages: items,
        views: [
          Self.alice: .init(
            membership: .member, visible: [VisibleRange(first: 1, last: nil)], items: items),
          Self.bob: .init(
            membership: .member, visible: [VisibleRange(first: bobFrom, last: nil)],
            items: items.filter { $0.sequence >= bobFrom }),
        ])
      s.checker.checkEnd(log: [logged], finals: [], simulation: s.simulation)
      return s.violations
    }
    #expect(try !verdict(bobFrom: 2).contains(.membership))
    #expect(try verdict(bobFrom: 1).contains(.membership))
  }

  @Test func aDeviceWhoseRangesAreNotTheServersBreaksMembership() throws {
    /// What the checker says of bob's device standing as `standing`, seeing `visible`, where
    /// the server says bob is a member from 2 on.
    func verdict(_ standing: Participation, _ visible: [(first: Int, last: Int?)]) throws
      -> [Violation.Invariant]
    {
      let s = try Scenario()
      s.sent("sim 1", as: Self.id1)
      s.sent("sim 2", as: Self.id2)
      let bobs = s.final(
        "bob.phone", shows: [(Self.id2, 2)], standing: standing, visible: visible)
      s.checkEnd(
        [Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]], bobFrom: 2, finals: [bobs])
      return s.violations
    }
    #expect(try verdict(.member, [(1, nil)]) == [.membership])
    #expect(try verdict(.removed, [(2, nil)]) == [.membership])
    #expect(try verdict(.member, [(2, nil)]) == [])
  }

  @Test func aReadTickThatGoesBackIsCaught() throws {
    let s = try Scenario()
    s.show([(Self.id1, 1, "sim 1", .read)], on: "alice.phone")
    s.show([(Self.id1, 1, "sim 1", .delivered)], on: "alice.phone")
    #expect(s.violations == [.receiptBackwards])
  }

  @Test func oneSendUnderTwoIDsIsAnIdentityChange() throws {
    let s = try Scenario()
    s.show([(Self.id1, nil, "sim 1", .unknown)], on: "alice.phone")
    s.show([(Self.id2, 1, "sim 1", .unknown)], on: "alice.phone")
    #expect(s.violations == [.identity])
  }

  @Test func ticksOnlyMoveForward() {
    #expect(Checker.mayFollow(.clock, with: .one))
    #expect(Checker.mayFollow(.one, with: .read))
    #expect(Checker.mayFollow(.clock, with: .failed))
    #expect(!Checker.mayFollow(.read, with: .two))
    #expect(!Checker.mayFollow(.one, with: .clock))
    #expect(!Checker.mayFollow(.failed, with: .one))
    #expect(!Checker.mayFollow(.two, with: .failed))
    #expect(Checker.mayFollow(.notSent, with: .clock))
    #expect(Checker.mayFollow(.notSent, with: .one), "an earlier post reached the server")
    #expect(!Checker.mayFollow(.notSent, with: .failed))
    #expect(!Checker.mayFollow(.one, with: .notSent))
  }

  // MARK: - Retention and stale sends

  /// A message missing from a device because it lies below the chat's history floor there is
  /// not lost, but the device's server search must find it; without a floor it is divergent.
  @Test func aPrunedMessageMustBeOnTheServerAndFoundByItsSearch() throws {
    func verdict(floor: Int?, found: Set<String>) throws -> [Violation.Invariant] {
      let s = try Scenario()
      s.sent("sim 1", as: Self.id1)
      s.sent("sim 2", as: Self.id2)
      let alices = s.final("alice.phone", shows: [(Self.id2, 2)], floor: floor, found: found)
      s.checkEnd([Self.chat: [(Self.id1, 1, "sim 1"), (Self.id2, 2, "sim 2")]], finals: [alices])
      return s.violations
    }
    #expect(try verdict(floor: 2, found: [Self.id1]) == [])
    #expect(try verdict(floor: 2, found: []) == [.prunedNotFound])
    #expect(try verdict(floor: 2, found: [Self.id2]) == [.prunedNotFound])
    #expect(try verdict(floor: nil, found: [Self.id1]) == [.divergent])
  }

  /// A post on the wire longer than the threshold (and the slack for a post already under
  /// way) after its message was queued breaks sent-stale; "send now" starts its age again.
  @Test func aStalePostWithoutSendNowIsSentStale() throws {
    let id = MessageID(rawValue: Self.id1)!
    func verdict(waited: Duration, sendNow: Bool) throws -> [Violation.Invariant] {
      let s = try Scenario()
      s.checker.staleAfter = .seconds(45)
      s.checker.sendSaved(id, on: "alice.phone")
      s.wait(waited)
      if sendNow { s.checker.sendNowTapped(id, on: "alice.phone") }
      s.wait(.seconds(1))
      s.checker.posted(id, from: "alice.phone")
      return s.violations
    }
    #expect(try verdict(waited: .seconds(30), sendNow: false) == [])
    #expect(try verdict(waited: .seconds(45) + Checker.postSlack, sendNow: false) == [.sentStale])
    #expect(try verdict(waited: .seconds(600), sendNow: false) == [.sentStale])
    #expect(try verdict(waited: .seconds(600), sendNow: true) == [])
  }

  /// A discard may post a held message whose post had started (then its delete): not stale.
  @Test func aDiscardedMessagePostedForItsDeleteIsNotSentStale() throws {
    let s = try Scenario()
    let id = MessageID(rawValue: Self.id1)!
    s.checker.staleAfter = .seconds(45)
    s.checker.sendSaved(id, on: "alice.phone")
    s.wait(.seconds(600))
    s.checker.discardTapped(id, on: "alice.phone")
    s.checker.posted(id, from: "alice.phone")
    #expect(s.violations == [])
  }

  /// A held message ("not sent — send now?") goes back to the clock only when its user chose
  /// "send now"; a discard that made it a tombstone may show the clock while its delete goes.
  @Test func aHeldMessageBackToSendingWithoutSendNowIsSentStale() throws {
    let id = MessageID(rawValue: Self.id1)!
    let s = try Scenario()
    s.showUnsent(Self.id1, .sending)
    s.showUnsent(Self.id1, .stale)
    s.showUnsent(Self.id1, .sending)
    #expect(s.violations == [.sentStale])
    let tapped = try Scenario()
    tapped.showUnsent(Self.id1, .sending)
    tapped.showUnsent(Self.id1, .stale)
    tapped.checker.sendNowTapped(id, on: "alice.phone")
    tapped.showUnsent(Self.id1, .sending)
    #expect(tapped.violations == [])
    let discarded = try Scenario()
    discarded.showUnsent(Self.id1, .stale)
    discarded.showUnsent(Self.id1, .sending, deleted: true)
    #expect(discarded.violations == [])
  }

  /// Failed to not sent (or back) is a tap whose clock no screen saw: allowed once per tap of
  /// retry or "send now", and caught without one.
  @Test func failedToNotSentNeedsATapWhoseClockWentUnseen() throws {
    let id = MessageID(rawValue: Self.id1)!
    let alices = SimDevice(name: "alice.phone", path: "/nonexistent", clockOffset: .zero)
    func verdict(_ from: SendState, _ to: SendState, tap: (Scenario) -> Void) throws
      -> [Violation.Invariant]
    {
      let s = try Scenario()
      s.showUnsent(Self.id1, .sending)
      s.showUnsent(Self.id1, from)
      tap(s)
      s.showUnsent(Self.id1, to)
      return s.violations
    }
    let refused = SendState.failed(reason: "refused")
    #expect(try verdict(refused, .stale) { _ in } == [.receiptBackwards])
    #expect(try verdict(refused, .stale) { $0.checker.retryTapped(id, on: alices) } == [])
    #expect(try verdict(.stale, refused) { _ in } == [.receiptBackwards])
    #expect(try verdict(.stale, refused) { $0.checker.sendNowTapped(id, on: "alice.phone") } == [])
    let twice = try Scenario()
    twice.showUnsent(Self.id1, .sending)
    twice.showUnsent(Self.id1, refused)
    twice.checker.retryTapped(id, on: alices)
    twice.showUnsent(Self.id1, .stale)
    twice.showUnsent(Self.id1, refused)
    #expect(twice.violations == [.receiptBackwards], "one tap, one unseen clock")
  }

  /// Failed to sent is backwards, unless the server acknowledged a post of the message (an
  /// earlier post held back on the way, accepted after the refusal): then the device shows
  /// what the server holds (seed 1073).
  @Test func failedToSentNeedsTheServerToHoldTheMessage() throws {
    func verdict(acknowledged: Bool) throws -> [Violation.Invariant] {
      let s = try Scenario()
      s.showUnsent(Self.id1, .sending)
      s.showUnsent(Self.id1, .failed(reason: "refused"))
      if acknowledged {
        s.simulation.history.acknowledged(
          History.Acknowledgement(
            conversation: Self.chat, clientMessageID: Self.id1, sender: "alice", sequence: 1))
      }
      s.show([(Self.id1, 1, "sim 1", .unknown)], on: "alice.phone")
      return s.violations
    }
    #expect(try verdict(acknowledged: false) == [.receiptBackwards])
    #expect(try verdict(acknowledged: true) == [])
  }

  /// A forward of a forward whose call a kill cut short (its row saved, its return lost) is
  /// followed to the original's text through it; a text nobody sent is still caught (seed 1730).
  @Test func aForwardOfACutShortForwardFollowsItToItsText() throws {
    func verdict(_ text: String) throws -> [Violation.Invariant] {
      let s = try Scenario()
      let history = s.simulation.history
      let sent = history.invokeSend(
        device: "alice.phone#1", user: Self.alice, conversation: Self.chat, text: "sim 1 the walk")
      history.sendSaved(sent, as: MessageID(rawValue: Self.id1)!)
      // bob's forward into the other chat: saved, then killed before it returned.
      _ = history.forwardInvoked(
        History.Forward(
          device: "bob.phone#1", user: Self.bob, source: Self.chat,
          message: MessageID(rawValue: Self.id1)!, conversation: Self.other))
      let third = "01a229f1-b89c-7002-8c1e-5a55a1d1e001"
      let again = history.forwardInvoked(
        History.Forward(
          device: "alice.phone#1", user: Self.alice, source: Self.other,
          message: MessageID(rawValue: Self.id2)!, conversation: Self.chat))
      history.forwardSaved(again, as: MessageID(rawValue: third)!)
      func item(
        _ id: String, _ sequence: Int, _ sender: UserID, _ text: String, in chat: ConversationID,
        forwarded: Bool? = nil
      ) -> Item {
        Item(
          id: "s-\(id)", clientMessageId: id, conversationId: chat.rawValue,
          senderId: sender.rawValue, text: text, sequence: sequence,
          sentAt: "2026-11-30T14:02:03.123Z", forwarded: forwarded)
      }
      let log = [
        LoggedConversation(
          id: Self.chat, members: [Self.alice, Self.bob],
          messages: [
            item(Self.id1, 1, Self.alice, "sim 1 the walk", in: Self.chat),
            item(third, 2, Self.alice, text, in: Self.chat, forwarded: true),
          ], views: [:]),
        LoggedConversation(
          id: Self.other, members: [Self.alice, Self.bob],
          messages: [
            item(Self.id2, 1, Self.bob, "sim 1 the walk", in: Self.other, forwarded: true)
          ],
          views: [:]),
      ]
      s.checker.checkForwards(log: log, finals: [], history: history, simulation: s.simulation)
      return s.violations
    }
    #expect(try verdict("sim 1 the walk") == [])
    #expect(try verdict("sim 9 never sent") == [.unexpected])
  }

  /// A held message its user discarded may end as a tombstone, or nowhere, on the server;
  /// not as a message, unless the server refused its delete for good.
  @Test func aDiscardedMessageTheServerStillHoldsIsKept() throws {
    func verdict(deleted: Bool, deleteRefused: Bool = false) throws -> [Violation.Invariant] {
      let s = try Scenario()
      s.checker.discardReturned(MessageID(rawValue: Self.id1)!, on: "alice.phone")
      if deleteRefused {
        s.simulation.history.refused(clientMessageID: Self.id2, deleting: Self.id1)
      }
      let item = Item(
        id: "server-1", clientMessageId: Self.id1, conversationId: Self.chat.rawValue,
        senderId: Self.alice.rawValue, text: deleted ? "" : "sim 1", sequence: 1,
        sentAt: "2026-11-30T14:02:03.123Z", deleted: deleted ? true : nil)
      let logged = LoggedConversation(
        id: Self.chat, members: [Self.alice, Self.bob], messages: [item], views: [:])
      s.checker.checkDiscards(log: [logged], simulation: s.simulation)
      return s.violations
    }
    #expect(try verdict(deleted: false) == [.discardKept])
    #expect(try verdict(deleted: true) == [])
    #expect(try verdict(deleted: false, deleteRefused: true) == [])
  }

  /// A discarded held message never posted is nowhere on the server, rightly: not lost.
  @Test func aDiscardedMessageNeverPostedIsNotLost() throws {
    let s = try Scenario()
    s.sent("sim 1", as: Self.id1)
    s.checker.discardReturned(MessageID(rawValue: Self.id1)!, on: "alice.phone")
    s.checkEnd([Self.chat: []])
    #expect(s.violations == [])
  }

  /// "Send now" does not excuse a message from arriving: one sent now and not on the server
  /// is lost.
  @Test func aStaleMessageSentNowMustArrive() throws {
    for arrived in [false, true] {
      let s = try Scenario()
      let id = MessageID(rawValue: Self.id1)!
      s.sent("sim 1", as: Self.id1)
      s.checker.held(id, on: "alice.phone")
      s.checker.sendNowTapped(id, on: "alice.phone")
      s.checkEnd([Self.chat: arrived ? [(Self.id1, 1, "sim 1")] : []])
      #expect(s.violations == (arrived ? [] : [.lost]))
    }
  }
}
