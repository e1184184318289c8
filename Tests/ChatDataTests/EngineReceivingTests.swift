import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

@Suite(.timeLimit(.minutes(3)))
struct EngineReceivingTests {
  @Test func openingShowsTheStoredRowsBeforeAnyNetworkAnswer() async throws {
    let p = try await Pair.make()
    for n in 1...3 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let first = p.watch(p.alice)
    await p.world.settle()
    #expect(first.latest?.texts == ["m1", "m2", "m3"])
    first.cancel()
    p.alice.network.hold()
    let screen = p.watch(p.alice)
    await p.world.settle()
    #expect(screen.all.first?.texts == ["m1", "m2", "m3"])
    p.alice.network.release()
    await p.close()
  }

  @Test func openingWorksWithNoNetworkAtAll() async throws {
    let p = try await Pair.make()
    try await p.world.post("before the tunnel", in: p.chat, as: "bob")
    await p.world.settle()
    _ = try await p.alice.engine.sync()
    await p.alice.engine.stop()
    p.alice.network.isOnline = false
    let screen = p.watch(p.alice)
    await p.world.settle()
    #expect(screen.latest?.texts == ["before the tunnel"])
    await p.close()
  }

  @Test func liveMessagesArriveWithoutAsking() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    _ = try await p.bob.messages.send("hi alice", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.texts == ["hi alice"])
    #expect(screen.latest?.first?.senderID == UserID("bob"))
    await p.close()
  }

  @Test func aDuplicateEventShowsOnce() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    p.alice.network.disturbEvents(.duplicate(1))
    try await p.world.post("twice?", in: p.chat, as: "bob")
    await p.world.settle()
    #expect(screen.latest?.texts == ["twice?"])
    await p.close()
  }

  @Test func aLateEventLandsInSequenceOrder() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    p.alice.network.disturbEvents(.swapNextTwo)
    try await p.world.post("first", in: p.chat, as: "bob")
    try await p.world.post("second", in: p.chat, as: "bob")
    await p.world.settle()
    #expect(screen.latest?.texts == ["first", "second"])
    #expect(screen.latest?.map(\.sequence) == [1, 2])
    await p.close()
  }

  @Test func aJumpInSequencesTriggersACatchUpAfterTheLastContiguous() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    try await p.world.post("one", in: p.chat, as: "bob")
    await p.world.settle()
    p.alice.network.disturbEvents(.skip(2))
    for text in ["two", "three", "four"] { try await p.world.post(text, in: p.chat, as: "bob") }
    await p.world.settle()
    #expect(p.alice.network.catchUpAfters.contains(1))
    #expect(screen.latest?.texts == ["one", "two", "three", "four"])
    #expect(await p.alice.engine.metrics().gapsDetected == 1)
    await p.close()
  }

  /// A reaction item is kept in the log, so the sequences stay dense, and never shown as a
  /// message of its own (API.md Part 3).
  @Test func aReactionItemIsKeptInTheLogAndNotShownAsAMessage() async throws {
    try await itemIsKeptAndNotShown { world, lunch, chat in
      try await world.react("👍", to: lunch, in: chat, as: "bob")
    }
  }

  /// A pin item (issue 36; the device does not show pins yet) is kept the same way.
  @Test func aPinItemIsKeptInTheLogAndNotShownAsAMessage() async throws {
    try await itemIsKeptAndNotShown { world, lunch, chat in
      try await world.pin(lunch, in: chat, as: "bob")
    }
  }

  /// bob's message, then the item `post` makes about it (expected 201), then another message:
  /// the screen shows the two messages at sequences 1 and 3, no gap is seen, and a reconnect's
  /// catch-up brings the item again and it stays out of sight.
  private func itemIsKeptAndNotShown(
    _ post: (TestWorld, String, ConversationID) async throws -> Int
  ) async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = UUID().uuidString.lowercased()
    try await p.world.post("lunch?", in: p.chat, as: "bob", clientMessageId: lunch)
    await p.world.settle()
    #expect(try await post(p.world, lunch, p.chat) == 201)
    try await p.world.post("at one", in: p.chat, as: "bob")
    await p.world.settle()
    #expect(screen.latest?.texts == ["lunch?", "at one"])
    #expect(screen.latest?.map(\.sequence) == [1, 3])
    #expect(await p.alice.engine.metrics().gapsDetected == 0)
    p.alice.network.isOnline = false
    await p.world.settle()
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(1))
    #expect(screen.latest?.texts == ["lunch?", "at one"])
    await p.close()
  }

  /// The message shows its reactions as the server holds them, through a duplicated event, a
  /// catch-up that brings the message after its reactions changed, and a delete.
  @Test func aMessageShowsTheServersReactionsWhateverOrderTheyCameIn() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    let lunch = UUID().uuidString.lowercased()
    try await p.world.post("lunch?", in: p.chat, as: "bob", clientMessageId: lunch)
    await p.world.settle()
    p.alice.network.disturbEvents(.duplicate(1))
    #expect(try await p.world.react("👍", to: lunch, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(
      screen.latest?.first?.reactions == [Reaction(emoji: "👍", count: 1, includesMe: false)])
    #expect(try await p.world.react("👍", to: lunch, in: p.chat, as: "alice") == 201)
    #expect(try await p.world.react("❤️", to: lunch, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(
      screen.latest?.first?.reactions == [
        Reaction(emoji: "👍", count: 2, includesMe: true),
        Reaction(emoji: "❤️", count: 1, includesMe: false),
      ])
    // Offline while bob takes 👍 back and puts it again, and takes ❤️ back: the catch-up
    // brings the message as it is now and the items again.
    p.alice.network.isOnline = false
    await p.world.settle()
    #expect(try await p.world.react("👍", to: lunch, in: p.chat, as: "bob", remove: true) == 201)
    #expect(try await p.world.react("❤️", to: lunch, in: p.chat, as: "bob", remove: true) == 201)
    #expect(try await p.world.react("👍", to: lunch, in: p.chat, as: "bob") == 201)
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(1))
    #expect(
      screen.latest?.first?.reactions == [Reaction(emoji: "👍", count: 2, includesMe: true)])
    #expect(try await p.world.delete(lunch, in: p.chat, as: "bob") == 201)
    await p.world.settle()
    #expect(screen.latest?.first?.isDeleted == true)
    #expect(screen.latest?.first?.reactions == [])
    await p.close()
  }

  @Test func everyReconnectTriggersACatchUp() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    try await p.world.post("before", in: p.chat, as: "bob")
    await p.world.settle()
    p.alice.network.isOnline = false
    await p.world.settle()
    for text in ["during 1", "during 2"] { try await p.world.post(text, in: p.chat, as: "bob") }
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(1))
    #expect(screen.latest?.texts == ["before", "during 1", "during 2"])
    let metrics = await p.alice.engine.metrics()
    #expect(metrics.reconnects == 1)
    #expect(metrics.lastCatchUpSize == 2)
    #expect(p.alice.network.catchUpAfters.contains(1))
    await p.close()
  }

  /// A device that knows it is far behind asks for the next pages side by side (at most four
  /// at once) and saves them in order.
  @Test func aLongCatchUpAsksForSeveralPagesAtOnceAndSavesThemInOrder() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    try await p.world.post("first", in: p.chat, as: "bob")
    await p.world.settle()
    p.alice.network.isOnline = false
    await p.world.settle()
    for index in 1...900 { try await p.world.post("missed \(index)", in: p.chat, as: "bob") }
    let before = p.alice.network.catchUpAfters.count
    p.alice.network.failNext(4, with: .holdReply, where: .fetches)
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(1))
    #expect(Array(p.alice.network.catchUpAfters.dropFirst(before)).sorted() == [1, 201, 401, 601])
    p.alice.network.release()
    await p.world.advance(by: .seconds(1))
    let texts = screen.latest?.texts ?? []
    #expect(texts.last == "missed 900")
    #expect(
      try await p.alice.engine.localMessages(in: p.chat, limit: 1_000).map(\.sequence)
        == Array(1...901))
    await p.close()
  }

  @Test func theSocketDropsAndComesBackWithBackoff() async throws {
    let p = try await Pair.make()
    let states = Probe(p.alice.engine.connectionStates(), on: p.world.executor)
    await p.world.settle()
    #expect(states.latest == .connected)
    let before = p.alice.network.connectAttempts
    p.alice.network.isOnline = false
    await p.world.settle()
    #expect(states.latest == .waitingForNetwork)
    await p.world.advance(by: .seconds(120))
    #expect(states.latest == .waitingForNetwork)
    // Exponential backoff (0.5 s doubling to 30 s): about ten tries in two minutes, not one
    // every half second.
    let tries = p.alice.network.connectAttempts - before
    #expect((6...12).contains(tries))
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(31))
    #expect(states.latest == .connected)
    await p.close()
  }

  @Test func aClockSetADayWrongChangesNothing() async throws {
    let world = try TestWorld()
    let alice = try await world.device("alice", wallClockOffset: .seconds(-86_400), seed: 1)
    let bob = try await world.device("bob", wallClockOffset: .seconds(86_400), seed: 2)
    let chat = try await alice.list.createConversation(title: "t", memberIDs: [UserID("bob")])
    await alice.engine.start()
    await bob.engine.start()
    await world.settle()
    _ = try await bob.messages.send("bob 1", in: chat)
    await world.settle()
    _ = try await alice.messages.send("alice 2", in: chat)
    await world.settle()
    _ = try await bob.messages.send("bob 3", in: chat)
    await world.settle()
    let aliceView = Probe(alice.messages.messages(in: chat), on: world.executor)
    let bobView = Probe(bob.messages.messages(in: chat), on: world.executor)
    await world.settle()
    #expect(aliceView.latest?.texts == ["bob 1", "alice 2", "bob 3"])
    #expect(bobView.latest?.texts == ["bob 1", "alice 2", "bob 3"])
    // The displayed time is the server's once accepted, not the phone's.
    #expect(aliceView.latest?.map(\.sentAt) == bobView.latest?.map(\.sentAt))
    await alice.engine.close()
    await bob.engine.close()
    await world.shutdown()
  }

  @Test func unsentMessagesStayLastInTheOrderTheyWereWritten() async throws {
    let p = try await Pair.make()
    p.alice.network.isOnline = false
    let screen = p.watch(p.alice)
    _ = try await p.alice.messages.send("queued 1", in: p.chat)
    _ = try await p.alice.messages.send("queued 2", in: p.chat)
    try await p.world.post("from bob", in: p.chat, as: "bob")
    p.alice.network.failNext(1, with: .status(503, retryAfter: 5), where: .sends)
    p.alice.network.isOnline = true
    await p.world.advance(by: .seconds(1))
    // Bob's message is caught up while alice's first post waits out its Retry-After.
    #expect(screen.latest?.texts == ["from bob", "queued 1", "queued 2"])
    #expect(screen.latest?.map(\.sequence) == [1, nil, nil])
    await p.world.advance(by: .seconds(10))
    #expect(screen.latest?.map(\.sequence) == [1, 2, 3])
    await p.close()
  }

  @Test func loadOlderFetches50BeforeTheOldestHeldAndSaysWhenItReachesTheBeginning()
    async throws
  {
    let p = try await Pair.make()
    for n in 1...120 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    // A new device of alice's has never fetched this conversation.
    let tablet = try await p.world.device("alice", "ipad", seed: 5)
    await tablet.engine.start()
    let screen = p.watch(tablet)
    await p.world.settle()
    #expect(screen.latest?.map(\.sequence) == Array(71...120))
    func befores() -> [String] {
      tablet.network.requests.compactMap { $0.query.first { $0.name == "before" }?.value }
    }
    #expect(try await tablet.messages.loadOlder(in: p.chat))
    await p.world.settle()
    #expect(befores() == ["71"])
    #expect(screen.latest?.map(\.sequence) == Array(21...120))
    #expect(try await tablet.messages.loadOlder(in: p.chat) == false)
    await p.world.settle()
    #expect(befores() == ["71", "21"])
    #expect(screen.latest?.map(\.sequence) == Array(1...120))
    #expect(try await tablet.messages.loadOlder(in: p.chat) == false)
    #expect(befores() == ["71", "21"])
    await tablet.engine.close()
    await p.close()
  }

  @Test func loadOlderShowsWhatTheDatabaseHoldsBeforeAskingTheServer() async throws {
    let p = try await Pair.make()
    for n in 1...80 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let first = p.watch(p.alice)
    await p.world.settle()
    _ = try await p.alice.messages.loadOlder(in: p.chat)
    await p.world.settle()
    #expect(first.latest?.count == 80)
    first.cancel()
    await p.world.settle()
    let again = p.watch(p.alice)
    await p.world.settle()
    #expect(again.latest?.count == 50)
    #expect(try await p.alice.messages.loadOlder(in: p.chat))
    await p.world.settle()
    #expect(again.latest?.count == 80)
    // All from the database: the server was never asked for older messages.
    #expect(!p.alice.network.requests.contains { $0.query.contains { $0.name == "before" } })
    await p.close()
  }

  @Test func twoDevicesOfOneUserEndWithTheSameOrder() async throws {
    let world = try TestWorld()
    let phone = try await world.device("alice", "phone", seed: 1)
    let tablet = try await world.device("alice", "ipad", seed: 2)
    let bob = try await world.device("bob", seed: 3)
    let chat = try await phone.list.createConversation(title: "t", memberIDs: [UserID("bob")])
    for device in [phone, tablet, bob] { await device.engine.start() }
    await world.settle()
    tablet.network.isOnline = false
    for n in 1...3 {
      _ = try await phone.messages.send("phone \(n)", in: chat)
      _ = try await tablet.messages.send("tablet \(n)", in: chat)
      _ = try await bob.messages.send("bob \(n)", in: chat)
    }
    await world.settle()
    tablet.network.isOnline = true
    await world.advance(by: .seconds(10))
    let views = [phone, tablet, bob].map {
      Probe($0.messages.messages(in: chat), on: world.executor)
    }
    await world.settle()
    let server = try await world.serverLog(chat, as: "bob").map(\.text)
    #expect(server.count == 9)
    for view in views { #expect(view.latest?.texts == server) }
    for device in [phone, tablet, bob] { await device.engine.close() }
    await world.shutdown()
  }
}
