import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import SQLite
import Testing

@testable import ChatData

@Suite(.timeLimit(.minutes(3)))
struct EngineListAndSessionTests {
  @Test func theListUpdatesFromTheSameDatabaseWhenAMessageArrives() async throws {
    let p = try await Pair.make()
    let list = Probe(p.alice.list.conversations(), on: p.world.executor)
    await p.world.settle()
    #expect(list.latest?.map(\.title) == ["Hiking"])
    #expect(list.latest?.first?.unreadCount == 0)
    _ = try await p.bob.messages.send("are you coming?", in: p.chat)
    await p.world.settle()
    #expect(list.latest?.first?.lastMessage?.text == "are you coming?")
    #expect(list.latest?.first?.unreadCount == 1)
    await p.close()
  }

  @Test func aNewConversationShowsUpOnTheOtherSideLive() async throws {
    let p = try await Pair.make()
    let list = Probe(p.bob.list.conversations(), on: p.world.executor)
    await p.world.settle()
    let group = try await p.alice.list.createConversation(
      title: "Group", memberIDs: [UserID("bob"), UserID("carol")])
    await p.world.settle()
    #expect(list.latest?.map(\.id).contains(group) == true)
    #expect(list.latest?.first { $0.id == group }?.memberIDs.count == 3)
    await p.close()
  }

  @Test func aMessageInAConversationNotYetKnownBringsTheConversation() async throws {
    let (p, list, group) = try await Pair.bobMissesANewGroup()
    #expect(list.latest?.map(\.id).contains(group) == false)
    _ = try await p.alice.messages.send("hello group", in: group)
    await p.world.settle()
    #expect(list.latest?.first { $0.id == group }?.lastMessage?.text == "hello group")
    await p.close()
  }

  /// Found by the simulation (quick seed 57 in the release build of its day): the `/v1/sync`
  /// that an unknown conversation's message started failed, the socket stayed up, and the
  /// device never learned the conversation.
  @Test func aFailedSyncForAnUnknownConversationIsTriedAgainWithoutAReconnect() async throws {
    let (p, list, group) = try await Pair.bobMissesANewGroup()
    p.bob.network.failNext(1, with: .status(503), where: RequestMatch { $0.path == "/v1/sync" })
    _ = try await p.alice.messages.send("hello group", in: group)
    await p.world.settle()
    #expect(list.latest?.map(\.id).contains(group) == false)
    await p.world.advance(by: .seconds(2))
    #expect(list.latest?.map(\.id).contains(group) == true)
    await p.close()
  }

  /// Found by the simulation (full seed 134 in a release build; now `RegressionSeedTests`): a
  /// conversation was created while the tablet's socket was down; the `/v1/sync` after its
  /// reconnect failed, and nothing tried it again.
  @Test func aFailedSyncAfterAReconnectIsTriedAgain() async throws {
    let p = try await Pair.make()
    let list = Probe(p.bob.list.conversations(), on: p.world.executor)
    await p.world.settle()
    p.bob.network.isOnline = false
    let group = try await p.alice.list.createConversation(title: "G", memberIDs: [UserID("bob")])
    await p.world.settle()
    p.bob.network.failNext(1, with: .status(503), where: RequestMatch { $0.path == "/v1/sync" })
    p.bob.network.isOnline = true
    let syncsBefore = p.bob.network.count("GET", "/v1/sync")
    await p.world.advance(by: .seconds(3))
    #expect(p.bob.network.count("GET", "/v1/sync") == syncsBefore + 2)
    #expect(list.latest?.map(\.id).contains(group) == true)
    await p.close()
  }

  /// Found by the simulation's open-file check: the engine's parts held each other in cycles,
  /// so a closed engine (and its SQLite connection) was never freed.
  @Test func aClosedEngineIsFreedWithItsDatabase() async throws {
    let world = try TestWorld()
    weak var released: MessageStore?
    do {
      let alice = try await world.device("alice")
      await alice.engine.start()
      await world.settle()
      released = alice.engine.context.store
      await alice.engine.close()
    }
    await world.settle()
    #expect(released == nil)
    await world.shutdown()
  }

  @Test func searchFindsMessagesOffline() async throws {
    let p = try await Pair.make()
    try await p.world.post("Hiking on Sunday at nine", in: p.chat, as: "bob")
    _ = try await p.alice.engine.sync()
    p.alice.network.isOnline = false
    let hits = try await p.alice.list.search("sunday", limit: 10).hits
    #expect(hits.map(\.snippet.text) == ["Hiking on Sunday at nine"])
    #expect(hits.first?.snippet.parts.first { $0.isMatch }?.text == "Sunday")
    #expect(hits.first?.conversationTitle == "Hiking")
    await p.close()
  }

  @Test func aMalformedSearchIsAClearErrorNotACrash() async throws {
    let p = try await Pair.make()
    await #expect(
      throws: ChatError.invalidInput("type at least one letter, digit or emoji to search")
    ) {
      try await p.alice.list.search("\"(*", limit: 10)
    }
    await p.close()
  }

  @Test func an401RefreshesOnceAndRetries() async throws {
    let p = try await Pair.make(accessTokenTTL: .seconds(60))
    await p.world.advance(by: .seconds(120))
    try await p.world.post("after expiry", in: p.chat, as: "bob")
    await p.world.settle()
    _ = try await p.alice.engine.sync()
    #expect(p.alice.network.count("POST", "/auth/refresh") == 1)
    let hits = try await p.alice.list.search("expiry", limit: 5).hits
    #expect(hits.count == 1)
    _ = try await p.alice.messages.send("still here", in: p.chat)
    await p.world.settle()
    #expect(try await p.world.serverLog(p.chat, as: "bob").map(\.text).last == "still here")
    await p.close()
  }

  /// The server closes a socket 30 s after its token expired ("token expired"): each time,
  /// the engine refreshes once and reconnects, and stays signed in.
  @Test func aSocketClosedForItsExpiredTokenRefreshesAndReconnectsEachTime() async throws {
    let p = try await Pair.make(accessTokenTTL: .seconds(60))
    let states = Probe(p.alice.engine.connectionStates(), on: p.world.executor)
    await p.world.advance(by: .seconds(3 * 95))
    #expect(p.alice.network.count("POST", "/auth/refresh") == 3)
    #expect(!states.all.contains(.signedOut))
    #expect(states.latest == .connected)
    #expect(p.alice.network.openSockets == 1)
    await p.close()
  }

  /// Two processes of one device (`chat listen` and a `chat send` on the same database): the
  /// one that meets the expired token second finds the tokens the first saved, and refreshes
  /// nothing. Presenting the spent refresh token again would read as theft to the server and
  /// revoke the family: both processes signed out.
  @Test func aSecondProcessOfTheDeviceTakesTheTokensTheFirstRefreshed() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let world = try TestWorld(accessTokenTTL: .seconds(60))
    let first = try await world.device("alice", database: .file(path))
    _ = try await world.device("bob")
    let chat = try await first.list.createConversation(title: "Trip", memberIDs: [UserID("bob")])
    let second = try await world.reopen(first, database: .file(path))
    await world.advance(by: .seconds(120))
    _ = try await first.engine.sync()
    #expect(first.network.count("POST", "/auth/refresh") == 1)
    _ = try await second.messages.send("from the second process", in: chat)
    _ = try await second.engine.sync()
    #expect(first.network.count("POST", "/auth/refresh") == 1, "no second refresh")
    _ = try await first.engine.sync()
    #expect(try await world.serverLog(chat, as: "bob").map(\.text) == ["from the second process"])
    await first.engine.close()
    await second.engine.close()
  }

  @Test func aSecond401SurfacesAsSignedOut() async throws {
    let p = try await Pair.make()
    let states = Probe(p.alice.engine.connectionStates(), on: p.world.executor)
    // The refresh itself succeeds; the retried request is refused again.
    let notRefresh = RequestMatch { !$0.path.hasSuffix("/auth/refresh") }
    p.alice.network.failNext(2, with: .status(401), where: notRefresh)
    await #expect(throws: ChatError.signedOut) { try await p.alice.engine.sync() }
    await p.world.settle()
    #expect(states.latest == .signedOut)
    #expect(p.alice.network.count("POST", "/auth/refresh") == 1)
    await #expect(throws: ChatError.signedOut) { try await p.alice.engine.sync() }
    await p.close()
  }

  @Test func signOutDeletesTheDatabaseFile() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "signout-\(UUID().uuidString).sqlite"
    ).path
    let world = try TestWorld()
    let alice = try await world.device("alice", database: .file(path))
    #expect(FileManager.default.fileExists(atPath: path))
    try await alice.engine.signOut()
    for suffix in ["", "-wal", "-shm"] {
      #expect(!FileManager.default.fileExists(atPath: path + suffix))
    }
    await #expect(throws: ChatError.signedOut) {
      _ = try await ChatEngine.open(.file(path), environment: alice.environment)
    }
    await world.shutdown()
  }

  @Test func noMessageTextAppearsInAnythingLogged() async throws {
    let p = try await Pair.make()
    let secret = "zebra-umbrella-7731"
    p.alice.network.failNext(1, with: .timeout, where: .sends)
    p.alice.network.failNext(1, with: .status(422), where: .sends)
    _ = try await p.alice.messages.send("\(secret) one", in: p.chat)
    _ = try await p.alice.messages.send("\(secret) two", in: p.chat)
    _ = try await p.bob.messages.send("\(secret) three", in: p.chat)
    await p.world.settle()
    p.alice.network.disturbEvents(.skip(1))
    try await p.world.post("\(secret) four", in: p.chat, as: "bob")
    try await p.world.post("\(secret) five", in: p.chat, as: "bob")
    _ = try await p.alice.list.search(secret, limit: 10)
    await p.world.advance(by: .seconds(10))
    let lines = p.world.log.lines
    let session = try #require(try await p.alice.engine.context.store.session())
    #expect(
      lines.allSatisfy { !$0.contains(session.accessToken) && !$0.contains(session.refreshToken) })
    // The paths that handle text did log: a retry, a rejection, a gap.
    let events = Set(p.world.log.events)
    #expect(events.isSuperset(of: ["send.will_retry", "send.rejected", "sync.gap", "send.saved"]))
    #expect(lines.allSatisfy { !$0.contains(secret) && !$0.contains("Bearer") })
    await p.close()
  }

  @Test func typingIsSentAtMostEveryThreeSecondsAndExpiresAfterFive() async throws {
    let p = try await Pair.make()
    let typing = Probe(p.bob.typing.typingUsers(in: p.chat), on: p.world.executor)
    await p.world.settle()
    p.alice.typing.userIsTyping(in: p.chat)
    p.alice.typing.userIsTyping(in: p.chat)
    await p.world.settle()
    #expect(typing.latest == [UserID("alice")])
    #expect(typing.all.filter { !$0.isEmpty }.count == 1)
    await p.world.advance(by: .milliseconds(4_900))
    #expect(typing.latest == [UserID("alice")])
    await p.world.advance(by: .milliseconds(200))
    #expect(typing.latest == [])
    await p.close()
  }

  @Test func typingStopsWhenTheirMessageArrives() async throws {
    let p = try await Pair.make()
    let typing = Probe(p.bob.typing.typingUsers(in: p.chat), on: p.world.executor)
    p.alice.typing.userIsTyping(in: p.chat)
    await p.world.settle()
    #expect(typing.latest == [UserID("alice")])
    _ = try await p.alice.messages.send("done typing", in: p.chat)
    await p.world.settle()
    #expect(typing.latest == [])
    await p.close()
  }

  @Test func timeToOpenAConversationIsMeasured() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    await p.world.settle()
    _ = screen
    #expect(await p.alice.engine.metrics().timeToOpen.count == 1)
    await p.close()
  }
}
