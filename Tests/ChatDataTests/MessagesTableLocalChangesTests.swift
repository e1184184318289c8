import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// My own edits and deletes in the store (`MessagesTable+LocalChanges.swift`, API.md Part 2):
/// shown at once, queued behind a message the server may hold, never compared with the
/// server's clock, and undone when the server refuses them.
@Suite struct MessagesTableLocalChangesTests {
  private let editID = StoreFixture.id(100)

  /// A fixture holding my message 1 ("Meet at the old lighthouse"), sent.
  private func sentMessage(_ location: Database.Location = .memory) async throws -> StoreFixture {
    let f = try await StoreFixture.make(location)
    try await f.addConversation()
    try await f.store.saveServerMessages(
      [f.serverMessage(1, from: f.me, text: "Meet at the old lighthouse")], in: f.chat, me: f.me)
    return f
  }

  private func shown(_ f: StoreFixture) async throws -> MessageRecord {
    try #require(try await f.store.snapshot(f.chat, limit: 50).messages.first)
  }

  @Test func myQueuedEditGivesWayToAnEarlierServerEditUntilMineIsAccepted() async throws {
    let f = try await sentMessage()
    let outcome = try await f.store.editOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, text: "Meet at the pier", id: editID,
      at: Date(timeIntervalSince1970: 9_999_999))
    #expect(outcome == .queued)
    #expect(try await shown(f).text == "Meet at the pier")
    #expect(try await shown(f).pendingEditedAt != nil)
    // My other device's edit, accepted before mine was posted.
    var other = f.serverMessage(2, from: f.me, text: "Meet at the cafe", id: StoreFixture.id(50))
    other.kind = .edit
    other.target = StoreFixture.id(1)
    try await f.store.saveServerMessages([other], in: f.chat, me: f.me)
    #expect(try await shown(f).text == "Meet at the cafe")
    #expect(try await shown(f).pendingEditedAt == nil)
    // Mine goes out next, and the server orders it after the other (this device's far-future
    // clock played no part).
    let next = try #require(try await f.store.startPosting(in: f.chat))
    #expect(next.record.kind == .edit)
    #expect(next.record.target == StoreFixture.id(1))
    #expect(next.record.text == "Meet at the pier")
    var mine = f.serverMessage(3, from: f.me, text: "Meet at the pier", id: editID)
    mine.kind = .edit
    mine.target = StoreFixture.id(1)
    try await f.store.saveServerMessages([mine], in: f.chat, me: f.me)
    #expect(try await shown(f).text == "Meet at the pier")
    #expect(try await shown(f).editedAt == mine.sentAt)
    #expect(try await f.store.outboxCount() == 0)
    #expect(try await f.store.snapshot(f.chat, limit: 50).messages.count == 1)
  }

  @Test func aLocalDeleteOfAPostedMessageLeavesNoTextInEitherFile() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await sentMessage(.file(path))
    _ = try await f.store.editOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, text: "Meet at the new pier", id: editID,
      at: Date())
    func filesHold(_ text: String) -> Bool {
      Database.occurrences(of: Array(text.utf8), inFilesAt: path) > 0
    }
    await f.store.finishErasure()
    // The queued edit keeps the text it replaced until the server answers (`restore_text`).
    #expect(filesHold("lighthouse") && filesHold("pier"), "the check can see the words")
    let outcome = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: StoreFixture.id(101), at: Date())
    #expect(outcome == .queued)
    // The rows at once; the index pages and the log in the erasure pass that follows.
    await f.store.finishErasure()
    #expect(!filesHold("lighthouse"))
    #expect(!filesHold("pier"))
    #expect(try await shown(f).isDeleted)
    #expect(try await f.store.search("pier", limit: 10).isEmpty)
    // The edit that never went is dropped; the delete waits.
    let next = try #require(try await f.store.startPosting(in: f.chat))
    #expect(next.record.kind == .delete)
    #expect(try await f.store.outboxCount() == 1)
  }

  /// My photo whose post started (its reply lost) deleted before the server answered: the
  /// tombstone shows no media and its bytes go, but the post goes again with the media it
  /// went with, since the server may hold it so (posted without, it was a 409); the server's
  /// answer, accepted or refused, drops what was kept.
  @Test(arguments: [true, false])
  func aDeletedPhotoWhosePostStartedIsPostedAgainWithItsMedia(accepted: Bool) async throws {
    let f = try await StoreFixture.make()
    try await f.addConversation()
    let id = StoreFixture.id(1)
    try await f.pendingPhoto(id, text: "the view")
    _ = try #require(try await f.store.startPosting(in: f.chat))

    let outcome = try await f.store.deleteOwn(
      id, in: f.chat, sender: f.me, id: StoreFixture.id(101), at: Date())
    #expect(outcome == .queued)
    let snapshot = try await f.store.snapshot(f.chat, limit: 50)
    let shown = RecordMapping.messages(snapshot, me: f.me)
    #expect(shown.map(\.isDeleted) == [true] && shown.map(\.text) == [""])
    #expect(shown.first?.media == nil, "a tombstone shows no media")
    let again = try #require(try await f.store.startPosting(in: f.chat))
    #expect(again.record.clientID == id && again.record.text == "the view")
    let upload = try #require(try await f.store.upload(of: id, in: f.chat, sender: f.me))
    #expect(upload.done && upload.media.key == "key-\(id)")

    if accepted {
      var answer = f.serverMessage(1, from: f.me, text: "the view", id: id)
      answer.media = upload.media
      try await f.store.saveServerMessages([answer], in: f.chat, me: f.me)
    } else {
      try await f.store.markFailed(id, sender: f.me, reason: "refused")
    }
    #expect(try await f.store.upload(of: id, in: f.chat, sender: f.me) == nil)
    #expect(try await f.store.snapshot(f.chat, limit: 50).messages.first?.isDeleted == true)
  }

  @Test func aChangeToAMessageThatIsNotMineOrIsGoneIsRefused() async throws {
    let f = try await sentMessage()
    try await f.store.saveServerMessages([f.serverMessage(2)], in: f.chat, me: f.me)
    let bobs = try await f.store.editOwn(
      StoreFixture.id(2), in: f.chat, sender: f.me, text: "x", id: editID, at: Date())
    #expect(bobs == .notFound)
    let unchanged = try await f.store.editOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, text: "Meet at the old lighthouse",
      id: editID, at: Date())
    #expect(unchanged == .unchanged)
    _ = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: editID, at: Date())
    let again = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: StoreFixture.id(101), at: Date())
    #expect(again == .deleted)
    #expect(try await f.store.outboxCount() == 1)
  }

  /// The server refused my queued edit: the message shows the text the server holds again.
  @Test func aRefusedEditPutsBackTheTextTheServerHolds() async throws {
    let f = try await sentMessage()
    _ = try await f.store.editOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, text: "Meet at the pier", id: editID,
      at: Date())
    #expect(try await shown(f).text == "Meet at the pier")
    #expect(try await f.store.markFailed(editID, sender: f.me, reason: "refused") == nil)
    #expect(try await shown(f).text == "Meet at the old lighthouse")
    #expect(try await shown(f).pendingEditedAt == nil)
  }

  /// My reaction and pin of the message, queued behind the refused edit, carry its ID as their
  /// target but restore nothing: the text still goes back. Found by the simulation (a 422
  /// injected on an edit with a reaction queued behind it left the edit's text shown).
  @Test func aRefusedEditPutsBackTheTextWithMyReactionAndPinQueuedBehindIt() async throws {
    let f = try await sentMessage()
    _ = try await f.store.editOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, text: "Meet at the pier", id: editID,
      at: Date())
    _ = try await f.store.react(
      "👍", to: StoreFixture.id(1), in: f.chat, sender: f.me, remove: false,
      id: StoreFixture.id(102), at: Date())
    _ = try await f.store.pin(
      StoreFixture.id(1), in: f.chat, sender: f.me, remove: false, id: StoreFixture.id(103),
      at: Date())
    #expect(try await f.store.markFailed(editID, sender: f.me, reason: "refused") == nil)
    #expect(try await shown(f).text == "Meet at the old lighthouse")
  }

  /// The server refused my queued delete: the tombstone goes and the sync position moves back
  /// below the message, so the next catch-up brings it back as the server holds it.
  /// Simulation seed 949: my message arriving again while my delete of it is still queued is
  /// erased at once, but my unsent forward of it stays until the server takes the delete (it
  /// may refuse it); the server's delete takes it.
  @Test func myUnsentForwardWaitsForTheServersDeleteOfItsSource() async throws {
    let f = try await sentMessage()
    let trip = ConversationID("c2")
    try await f.addConversation(trip, members: [f.me, f.carol])
    var forward = f.pending(StoreFixture.id(50), text: "Meet at the old lighthouse")
    forward.conversationID = trip
    forward.forwardOf = "\(f.chat.rawValue)/\(StoreFixture.id(1).rawValue)"
    try await f.store.insertPending(forward, queuedAt: 0)
    _ = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: editID, at: Date())
    try await f.store.saveServerMessages(
      [f.serverMessage(1, from: f.me, text: "Meet at the old lighthouse")], in: f.chat, me: f.me)
    #expect(
      try await f.store.snapshot(trip, limit: 50).messages.map(\.clientID) == [forward.clientID])
    var delete = f.serverMessage(2, from: f.me, text: "", id: editID)
    delete.kind = .delete
    delete.target = StoreFixture.id(1)
    try await f.store.saveServerMessages([delete], in: f.chat, me: f.me)
    #expect(try await f.store.snapshot(trip, limit: 50).messages.isEmpty)
  }

  @Test func aRefusedDeleteIsUndoneByACatchUpFromBelowTheMessage() async throws {
    let f = try await sentMessage()
    _ = try await f.store.deleteOwn(
      StoreFixture.id(1), in: f.chat, sender: f.me, id: editID, at: Date())
    #expect(try await f.store.markFailed(editID, sender: f.me, reason: "refused") == f.chat)
    #expect(try await f.store.snapshot(f.chat, limit: 50).messages.isEmpty)
    #expect(try await f.store.conversation(f.chat)?.syncedUpTo == 0)
  }
}
