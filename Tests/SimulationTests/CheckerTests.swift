import ChatDomain
import ChatPresentation
import Foundation
import Testing

@testable import ChatSimulation

/// The end-of-run checker on made-up server logs: each invariant fires on the history that
/// breaks it, and stays quiet on one that keeps it. (The known-bug tests show the same for
/// bugs put back in a real engine.)
@Suite struct CheckerTests {
  let alice = UserID("alice")
  let bob = UserID("bob")
  let chat = ConversationID("c-ab")
  let other = ConversationID("c-abc")

  /// A checker over an empty history, with the simulation it labels things by.
  private func checker() throws -> (Checker, Simulation, cleanUp: () -> Void) {
    let options = SimulationOptions(profile: .quick, folder: NSTemporaryDirectory())
    let simulation = try Simulation(seed: 1, options: options)
    return (
      Checker(history: simulation.history), simulation,
      { try? FileManager.default.removeItem(atPath: simulation.folder) }
    )
  }

  private func message(
    _ id: String, by sender: UserID, _ sequence: Int, in conversation: ConversationID, text: String
  )
    -> WireMessage
  {
    WireMessage(
      clientMessageId: id, conversationId: conversation.rawValue, senderId: sender.rawValue,
      text: text, sequence: sequence)
  }

  /// alice sent "sim 1" (saved as `id`) in `conversation`, and the history says so.
  private func sent(
    _ text: String, as id: String, in conversation: ConversationID, _ simulation: Simulation
  ) {
    let number = simulation.history.invokeSend(
      device: "alice.phone#1", user: alice, conversation: conversation, text: text)
    simulation.history.sendSaved(number, as: MessageID(rawValue: id)!)
  }

  private static let id1 = "01a229f1-b89c-7000-9621-edfefd7b1fb5"
  private static let id2 = "01a229f1-b89c-7001-af47-11930586e712"

  @Test func aLogThatKeepsEveryRuleBreaksNone() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    sent("sim 1", as: Self.id1, in: chat, simulation)
    sent("sim 2", as: Self.id2, in: chat, simulation)
    let log = [
      LoggedConversation(
        id: chat, members: [alice, bob],
        messages: [
          message(Self.id1, by: alice, 1, in: chat, text: "sim 1"),
          message(Self.id2, by: alice, 2, in: chat, text: "sim 2"),
        ])
    ]
    checker.checkEnd(log: log, finals: [], simulation: simulation)
    #expect(checker.violations == [])
  }

  @Test func aHoleInTheSequencesIsAGap() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    sent("sim 1", as: Self.id1, in: chat, simulation)
    sent("sim 2", as: Self.id2, in: chat, simulation)
    let log = [
      LoggedConversation(
        id: chat, members: [alice, bob],
        messages: [
          message(Self.id1, by: alice, 1, in: chat, text: "sim 1"),
          message(Self.id2, by: alice, 3, in: chat, text: "sim 2"),
        ])
    ]
    checker.checkEnd(log: log, finals: [], simulation: simulation)
    #expect(checker.violations.map(\.invariant) == [.gap])
  }

  @Test func oneIDOfOneSenderInTwoConversationsIsADuplicate() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    sent("sim 1", as: Self.id1, in: chat, simulation)
    sent("sim 2", as: Self.id1, in: other, simulation)
    let log = [
      LoggedConversation(
        id: chat, members: [alice, bob],
        messages: [message(Self.id1, by: alice, 1, in: chat, text: "sim 1")]),
      LoggedConversation(
        id: other, members: [alice, bob],
        messages: [message(Self.id1, by: alice, 1, in: other, text: "sim 2")]),
    ]
    checker.checkEnd(log: log, finals: [], simulation: simulation)
    #expect(checker.violations.map(\.invariant) == [.duplicated])
  }

  @Test func anAcknowledgedMessageMissingFromTheLogIsLost() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    simulation.history.acknowledged(
      History.Acknowledgement(
        conversation: chat, clientMessageID: Self.id1, sender: "alice", sequence: 1))
    checker.checkEnd(
      log: [LoggedConversation(id: chat, members: [alice, bob], messages: [])], finals: [],
      simulation: simulation)
    #expect(checker.violations.map(\.invariant) == [.lost])
  }

  @Test func aSavedSendTheServerNeverGotIsLost() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    sent("sim 1", as: Self.id1, in: chat, simulation)
    checker.checkEnd(
      log: [LoggedConversation(id: chat, members: [alice, bob], messages: [])], finals: [],
      simulation: simulation)
    #expect(checker.violations.map(\.invariant) == [.lost])
  }

  @Test func aMessageNobodySentIsUnexpected() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    let log = [
      LoggedConversation(
        id: chat, members: [alice, bob],
        messages: [message(Self.id1, by: bob, 1, in: chat, text: "sim from nowhere")])
    ]
    checker.checkEnd(log: log, finals: [], simulation: simulation)
    #expect(checker.violations.map(\.invariant) == [.unexpected])
  }

  // MARK: - What screens show

  /// `device`'s screen shows `messages` in `conversation` (alice and bob are its members).
  private func show(
    _ messages: [Message], on device: SimDevice, in conversation: ConversationID,
    _ checker: Checker, _ simulation: Simulation
  ) {
    if simulation.members(of: conversation) == nil {
      simulation.conversations.append(
        Simulation.ConversationInfo(id: conversation, label: "ab", members: [alice, bob]))
    }
    let incarnation = Incarnation(
      name: device.name + "#1", executor: simulation.world.makeExecutor(device.name))
    checker.observe(
      messages, in: conversation, device: device, incarnation: incarnation,
      simulation: simulation)
  }

  private func shown(
    _ id: String, by sender: UserID, _ sequence: Int?, text: String,
    receipt: ReceiptState = .unknown
  ) -> Message {
    Message(
      id: MessageID(rawValue: id)!, conversationID: chat, senderID: sender, text: text,
      sentAt: Date(timeIntervalSince1970: 0), sequence: sequence,
      send: sequence == nil ? .sending : .sent, receipt: receipt)
  }

  private func device(_ name: String) -> SimDevice {
    SimDevice(name: name, path: "/nonexistent", clockOffset: .zero)
  }

  @Test func twoDevicesShowingTwoMessagesAtOneSequenceIsASequenceChange() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    show(
      [shown(Self.id1, by: alice, 1, text: "sim 1")], on: device("alice.phone"), in: chat, checker,
      simulation)
    show(
      [shown(Self.id2, by: alice, 1, text: "sim 2")], on: device("bob.phone"), in: chat, checker,
      simulation)
    #expect(checker.violations.map(\.invariant) == [.sequenceChanged])
  }

  @Test func aScreenOutOfSequenceOrderIsMisordered() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    show(
      [shown(Self.id2, by: alice, 2, text: "sim 2"), shown(Self.id1, by: alice, 1, text: "sim 1")],
      on: device("bob.phone"), in: chat, checker, simulation)
    #expect(checker.violations.map(\.invariant) == [.misordered])
  }

  @Test func aConversationShownToANonMemberIsForeign() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    show(
      [shown(Self.id1, by: alice, 1, text: "sim 1")], on: device("carol.phone"), in: chat, checker,
      simulation)
    #expect(checker.violations.map(\.invariant).contains(.foreign))
  }

  @Test func aReadTickThatGoesBackIsCaught() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    let phone = device("alice.phone")
    show(
      [shown(Self.id1, by: alice, 1, text: "sim 1", receipt: .read)], on: phone, in: chat, checker,
      simulation)
    show(
      [shown(Self.id1, by: alice, 1, text: "sim 1", receipt: .delivered)], on: phone, in: chat,
      checker, simulation)
    #expect(checker.violations.map(\.invariant) == [.receiptBackwards])
  }

  @Test func oneSendUnderTwoIDsIsAnIdentityChange() throws {
    let (checker, simulation, cleanUp) = try checker()
    defer { cleanUp() }
    let phone = device("alice.phone")
    show([shown(Self.id1, by: alice, nil, text: "sim 1")], on: phone, in: chat, checker, simulation)
    show([shown(Self.id2, by: alice, 1, text: "sim 1")], on: phone, in: chat, checker, simulation)
    #expect(checker.violations.map(\.invariant) == [.identity])
  }

  @Test func ticksOnlyMoveForward() {
    #expect(Checker.mayFollow(.clock, with: .one))
    #expect(Checker.mayFollow(.one, with: .read))
    #expect(Checker.mayFollow(.clock, with: .failed))
    #expect(!Checker.mayFollow(.read, with: .two))
    #expect(!Checker.mayFollow(.one, with: .clock))
    #expect(!Checker.mayFollow(.failed, with: .one))
    #expect(!Checker.mayFollow(.two, with: .failed))
  }
}
