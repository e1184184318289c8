import ChatDataInspection
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 2, "Edits and deletes", on the device: an edit or delete of a message still
/// unsent changes the queued row in place (nothing extra is posted); once its post has started,
/// the change is queued behind it. Either way the screen shows it at once.
@Suite(.timeLimit(.minutes(3)))
struct EngineEditDeleteTests {
  @Test func anEditOfAMessageStillUnsentChangesItInPlaceAndOnlyTheMessageIsPosted() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.isOnline = false
    let id = try await p.alice.messages.send("see you at 9", in: p.chat)
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 10")
    await p.world.settle()
    #expect(screen.latest?.texts == ["see you at 10"])
    #expect(screen.latest?.first?.editedAt == nil)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    // Offline, the posts never left: the first that reached the server carried the edit.
    #expect(p.alice.network.deliveredPosts.map(\.clientMessageId) == [id.rawValue])
    let log = try await p.world.serverLog(p.chat, as: "bob")
    #expect(log.map(\.text) == ["see you at 10"])
    #expect(log.first?.editedAt == nil)
    #expect(await p.alice.engine.outboxCount() == 0)
    #expect(try await p.alice.list.search("9", limit: 10).hits.isEmpty)
    await p.close()
  }

  @Test func anEditWhileTheMessageIsInFlightIsQueuedBehindIt() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.hold()
    let id = try await p.alice.messages.send("see you at 9", in: p.chat)
    await p.world.settle()
    // The post has started: the server may already hold the first text under this ID.
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 10")
    await p.world.settle()
    let shown = try #require(screen.latest?.first)
    #expect(screen.latest?.count == 1)
    #expect(shown.text == "see you at 10")
    #expect(shown.editedAt != nil)
    #expect(shown.send == .sending)
    p.alice.network.release()
    await p.world.settle()
    #expect(p.alice.network.postedTexts == ["see you at 9", "see you at 10"])
    try await expectConverged(p, on: id, to: "see you at 10")
    #expect(screen.latest?.first?.send == .sent)
    await p.close()
  }

  @Test func anEditAfterALostReplyIsQueuedAndTheRetryKeepsTheFirstBody() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.failNext(1, with: .loseReply, where: .sends)
    p.alice.network.disturbEvents(.skip(1))
    let id = try await p.alice.messages.send("see you at 9", in: p.chat)
    await p.world.settle()
    // The server committed it, alice does not know: her row is still sending.
    #expect(try await p.world.serverLog(p.chat, as: "alice").count == 1)
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 10")
    await p.world.settle()
    #expect(screen.latest?.texts == ["see you at 10"])
    await p.world.advance(by: .seconds(5))
    // The retry of the same ID carries the body first posted (another body would be 409),
    // then the edit goes.
    #expect(p.alice.network.postedTexts == ["see you at 9", "see you at 9", "see you at 10"])
    #expect(p.alice.network.postedIDs.prefix(2) == [id.rawValue, id.rawValue])
    try await expectConverged(p, on: id, to: "see you at 10")
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aDeleteOfAMessageStillUnsentNeverReachesTheServer() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.isOnline = false
    let id = try await p.alice.messages.send("wrong chat, sorry", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.count == 1)
    try await p.alice.messages.delete(id, in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.isEmpty == true)
    #expect(try await p.alice.list.search("wrong", limit: 10).hits.isEmpty)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(p.alice.network.deliveredPosts.isEmpty)
    #expect(try await p.world.serverLog(p.chat, as: "bob").isEmpty)
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  /// Issue 13: a delete that arrives on the socket before the message it deletes (out of
  /// order) still leaves a tombstone; the message's own event, late and with its text, does
  /// not bring the text back to the screen, the rows or the search index. (The catch-up the
  /// early delete starts is held, so the late event is what brings the message.)
  @Test func aDeleteThatArrivesBeforeItsMessageOnTheSocketLeavesATombstone() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    try await p.world.post("hello", in: p.chat, as: "bob")
    await p.world.settle()
    // bob's next receipts wait for the end of the window (the clock stands still), so the
    // next two events are the message and its delete: swapped.
    p.alice.network.disturbEvents(.swapNextTwo)
    p.alice.network.hold()
    let id = UUID().uuidString.lowercased()
    let posted = try await p.world.post(
      "the door code is 4711", in: p.chat, as: "bob", clientMessageId: id)
    #expect(posted == 201)
    #expect(try await p.world.delete(id, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(screen.latest?.map(\.isDeleted) == [false, true])
    #expect(screen.latest?.map(\.text) == ["hello", ""])
    #expect(try await p.alice.list.search("4711", limit: 10).hits.isEmpty)
    #expect(try await !p.alice.engine.holdsText("4711"))
    p.alice.network.release()
    await p.world.settle()
    #expect(screen.latest?.map(\.isDeleted) == [false, true])
    #expect(try await !p.alice.engine.holdsText("4711"))
    await p.close()
  }

  @Test func aDeleteOfASentMessageIsATombstoneHereAtOnceThenEverywhere() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let bobScreen = p.watch(p.bob)
    let id = try await p.alice.messages.send("the door code is 4711", in: p.chat)
    await p.world.settle()
    #expect(bobScreen.latest?.texts == ["the door code is 4711"])
    p.alice.network.isOnline = false
    try await p.alice.messages.delete(id, in: p.chat)
    await p.world.settle()
    // Offline, and already gone from alice's screen and search.
    #expect(screen.latest?.first?.isDeleted == true)
    #expect(screen.latest?.first?.text == "")
    #expect(try await p.alice.list.search("4711", limit: 10).hits.isEmpty)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    let log = try await p.world.serverLog(p.chat, as: "bob")
    #expect(log.map(\.kind) == ["message", "delete"])
    #expect(log.first?.deleted == true)
    #expect(log.first?.text == "")
    #expect(bobScreen.latest?.map(\.isDeleted) == [true])
    #expect(try await p.bob.list.search("4711", limit: 10).hits.isEmpty)
    await p.close()
  }

  @Test func aDeleteWhileTheMessageIsInFlightErasesItHereAndIsQueuedBehindIt() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    p.alice.network.hold()
    let id = try await p.alice.messages.send("the door code is 4711", in: p.chat)
    await p.world.settle()
    try await p.alice.messages.delete(id, in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.first?.isDeleted == true)
    #expect(try await p.alice.list.search("4711", limit: 10).hits.isEmpty)
    p.alice.network.release()
    await p.world.settle()
    let log = try await p.world.serverLog(p.chat, as: "bob")
    #expect(log.map(\.kind) == ["message", "delete"])
    #expect(log.first?.deleted == true)
    #expect(screen.latest?.map(\.isDeleted) == [true])
    #expect(screen.latest?.first?.send == .sent)
    #expect(await p.alice.engine.outboxCount() == 0)
    await p.close()
  }

  @Test func aQueuedEditThenDeleteOfASentMessageDropsTheEditThatNeverWent() async throws {
    let p = try await Pair.make()
    let id = try await p.alice.messages.send("first", in: p.chat)
    await p.world.settle()
    p.alice.network.isOnline = false
    try await p.alice.messages.edit(id, in: p.chat, to: "second")
    try await p.alice.messages.delete(id, in: p.chat)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.kind) == ["message", "delete"])
    #expect(p.alice.network.deliveredPosts.map(\.kind) == [nil, .delete])
    await p.close()
  }

  /// Found by the simulation (edits and deletes in its workload): a refused edit left the device showing it.
  @Test func anEditTheServerRefusesPutsTheMessageBackAsTheServerHasIt() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let id = try await p.alice.messages.send("see you at 9", in: p.chat)
    await p.world.settle()
    p.alice.network.failNext(1, with: .status(422), where: .sends)
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 10")
    await p.world.settle()
    #expect(screen.latest?.first?.text == "see you at 9")
    #expect(screen.latest?.first?.editedAt == nil)
    #expect(try await p.alice.list.search("9", limit: 10).hits.count == 1)
    #expect(try await p.alice.list.search("10", limit: 10).hits.isEmpty)
    // Accepted changes still hold, and leave nothing to restore behind.
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 11")
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").first?.text == "see you at 11")
    #expect(screen.latest?.first?.text == "see you at 11")
    await p.close()
  }

  /// Found by the simulation (edits and deletes in its workload): a refused delete left a tombstone here while
  /// the server and every other device still showed the message. The delete erased the text at
  /// once and kept nothing, so the message comes back from the server, edit and all.
  @Test func aDeleteTheServerRefusesBringsTheMessageBackFromTheServer() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let id = try await p.alice.messages.send("see you at 9", in: p.chat)
    try await p.alice.messages.edit(id, in: p.chat, to: "see you at 10")
    _ = try await p.bob.messages.send("ok", in: p.chat)
    await p.world.settle()
    p.alice.network.failNext(1, with: .status(422), where: .sends)
    try await p.alice.messages.delete(id, in: p.chat)
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").first?.deleted == false)
    #expect(screen.latest?.texts == ["see you at 10", "ok"])
    #expect(screen.latest?.first?.isDeleted == false)
    #expect(screen.latest?.first?.editedAt != nil)
    #expect(try await p.alice.list.search("at 10", limit: 10).hits.count == 1)
    // Sent again by hand, the delete erases at once, as when it was first made, and then holds.
    let failed = try #require(
      try await p.alice.engine.context.store.allMessages().first {
        $0.kind == .delete && $0.state == .failed
      })
    p.alice.network.isOnline = false
    await p.alice.messages.retry(failed.clientID)
    await p.world.settle()
    #expect(screen.latest?.first?.isDeleted == true)
    #expect(try await p.alice.list.search("at 10", limit: 10).hits.isEmpty)
    p.alice.network.isOnline = true
    await p.alice.engine.outbox.wake()
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").first?.deleted == true)
    #expect(screen.latest?.map(\.isDeleted) == [true, false])
    await p.close()
  }

  /// The refused delete's hole outlives a restart: the catch-up that brings the message back
  /// runs whenever it next can.
  @Test func aRefusedDeleteStillComesBackWhenTheCatchUpHadToWait() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "engine-\(UUID().uuidString).sqlite"
    ).path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let world = try TestWorld()
    let alice = try await world.device("alice", database: .file(path))
    _ = try await world.device("bob")
    let chat = try await alice.list.createConversation(title: "Trip", memberIDs: [UserID("bob")])
    await alice.engine.start()
    let id = try await alice.messages.send("see you at 9", in: chat)
    await world.settle()
    alice.network.failNext(1, with: .status(422), where: .sends)
    alice.network.failNext(1, with: .offline, where: .fetches)
    try await alice.messages.delete(id, in: chat)
    await world.settle()
    let before = try #require(try await alice.engine.context.store.snapshot(chat, limit: 10))
    #expect(before.messages.isEmpty)
    await alice.engine.close()

    let relaunched = try await world.reopen(alice, database: .file(path))
    await relaunched.engine.start()
    await world.settle()
    let shown = try #require(try await relaunched.engine.context.store.snapshot(chat, limit: 10))
    #expect(shown.messages.map(\.text) == ["see you at 9"])
    await relaunched.engine.close()
    await world.shutdown()
  }

  @Test func onlyMyOwnMessagesThatStillExistCanChange() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.bob)
    let id = try await p.alice.messages.send("mine", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.count == 1)
    await #expect(throws: ChatError.self) {
      try await p.bob.messages.edit(id, in: p.chat, to: "not yours")
    }
    await #expect(throws: ChatError.self) { try await p.bob.messages.delete(id, in: p.chat) }
    await #expect(throws: ChatError.invalidInput("the message is empty")) {
      try await p.alice.messages.edit(id, in: p.chat, to: "  ")
    }
    try await p.alice.messages.delete(id, in: p.chat)
    await #expect(throws: ChatError.invalidInput("the message was deleted")) {
      try await p.alice.messages.edit(id, in: p.chat, to: "back")
    }
    await p.close()
  }

  /// Both devices and the server hold the message at `text`, edited.
  private func expectConverged(_ p: Pair, on id: MessageID, to text: String) async throws {
    let log = try await p.world.serverLog(p.chat, as: "bob")
    #expect(log.map(\.kind) == ["message", "edit"])
    #expect(log.first?.text == text)
    #expect(log.first?.editedAt != nil)
    for device in [p.alice, p.bob] {
      let shown = try #require(
        try await device.engine.context.store.snapshot(p.chat, limit: 10).messages)
      let message = try #require(shown.first { $0.clientID == id })
      #expect(message.text == text)
      #expect(message.editedAt != nil)
      #expect(message.pendingEditedAt == nil)
    }
  }
}
