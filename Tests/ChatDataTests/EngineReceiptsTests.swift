import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

@Suite(.timeLimit(.minutes(3)))
struct EngineReceiptsTests {
  @Test func ticksStayUnknownUntilReceiptsLoadNeverNotDelivered() async throws {
    // Bob's phone stays off, so no receipt event arrives either.
    let p = try await Pair.make(start: false)
    p.alice.network.failNext(100, with: .status(503), where: .receipts)
    await p.alice.engine.start()
    let screen = p.watch(p.alice)
    _ = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.first?.send == .sent)
    #expect(screen.latest?.first?.receipt == .unknown)
    await p.close()
  }

  @Test func aFailedReceiptsCallKeepsTheSavedNumbers() async throws {
    let p = try await Pair.make()
    _ = try await p.alice.messages.send("hello", in: p.chat)
    await p.world.settle()
    try await p.world.markRead(upTo: 1, in: p.chat, as: "bob")
    let first = p.watch(p.alice)
    await p.world.settle()
    #expect(first.latest?.first?.receipt == .read)
    first.cancel()
    p.alice.network.failNext(1, with: .status(500), where: .receipts)
    let second = p.watch(p.alice)
    await p.world.settle()
    #expect(second.latest?.first?.receipt == .read)
    await p.close()
  }

  @Test func readUpToNMarksEverythingUpToNReadAndTheRestDelivered() async throws {
    let p = try await Pair.make()
    let screen = p.watch(p.alice)
    for n in 1...3 { _ = try await p.alice.messages.send("m\(n)", in: p.chat) }
    await p.world.settle()
    // Bob's device received all three (delivered); bob read two.
    p.bob.messages.markRead(upTo: 2, in: p.chat)
    await p.world.advance(by: .seconds(3))
    #expect(screen.latest?.map(\.receipt) == [.read, .read, .delivered])
    await p.close()
  }

  @Test func markReadPostsAtMostOncePerTwoSecondsAndNeverALowerNumber() async throws {
    let p = try await Pair.make()
    for n in 1...5 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let screen = p.watch(p.alice)
    await p.world.settle()
    #expect(screen.latest?.count == 5)
    func reads() -> [Int] {
      p.alice.network.requests.filter { $0.path.hasSuffix("/read") }.compactMap {
        (try? APICoding.decode(UpTo.self, from: $0.body))?.upToSequence
      }
    }
    p.alice.messages.markRead(upTo: 2, in: p.chat)
    await p.world.settle()
    #expect(reads() == [2])
    p.alice.messages.markRead(upTo: 3, in: p.chat)
    p.alice.messages.markRead(upTo: 1, in: p.chat)
    p.alice.messages.markRead(upTo: 4, in: p.chat)
    await p.world.settle()
    #expect(reads() == [2])
    await p.world.advance(by: .milliseconds(1_900))
    #expect(reads() == [2])
    await p.world.advance(by: .milliseconds(200))
    #expect(reads() == [2, 4])
    p.alice.messages.markRead(upTo: 3, in: p.chat)
    await p.world.advance(by: .seconds(5))
    #expect(reads() == [2, 4])
    await p.close()
  }

  @Test func readingLowersTheUnreadCountAtOnceAndOnMyOtherDevice() async throws {
    let world = try TestWorld()
    let phone = try await world.device("alice", "phone", seed: 1)
    let tablet = try await world.device("alice", "ipad", seed: 2)
    _ = try await world.device("bob", seed: 3)
    let chat = try await phone.list.createConversation(title: "t", memberIDs: [UserID("bob")])
    await phone.engine.start()
    await tablet.engine.start()
    for n in 1...4 { try await world.post("m\(n)", in: chat, as: "bob") }
    let phoneList = Probe(phone.list.conversations(), on: world.executor)
    let tabletList = Probe(tablet.list.conversations(), on: world.executor)
    await world.settle()
    #expect(phoneList.latest?.first?.unreadCount == 4)
    #expect(tabletList.latest?.first?.unreadCount == 4)
    phone.network.hold()
    phone.messages.markRead(upTo: 3, in: chat)
    await world.settle()
    #expect(phoneList.latest?.first?.unreadCount == 1)
    phone.network.release()
    // The tablet hears it in the next receipts frame (at most one per 250 ms).
    await world.advance(by: .milliseconds(300))
    #expect(tabletList.latest?.first?.unreadCount == 1)
    await phone.engine.close()
    await tablet.engine.close()
    await world.shutdown()
  }

  @Test func aReadNumberTheServerNeverConfirmedIsPostedAtTheNextLaunch() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "owed-\(UUID().uuidString).sqlite"
    ).path
    defer { try? Database.deleteFiles(at: path) }
    let world = try TestWorld()
    let alice = try await world.device("alice", database: .file(path))
    _ = try await world.device("bob")
    let chat = try await alice.list.createConversation(title: "t", memberIDs: [UserID("bob")])
    await alice.engine.start()
    try await world.post("m1", in: chat, as: "bob")
    await world.settle()
    alice.network.failNext(1, with: .timeout, where: .reads)
    alice.messages.markRead(upTo: 1, in: chat)
    await world.settle()
    // The app is killed before the retry; only the database remembers the number is owed.
    await alice.engine.close()
    #expect(alice.network.count("POST", "/read") == 1)
    let relaunched = try await world.reopen(alice, database: .file(path))
    await relaunched.engine.start()
    await world.settle()
    #expect(alice.network.count("POST", "/read") == 2)
    let list = Probe(relaunched.list.conversations(), on: world.executor)
    await world.settle()
    #expect(list.latest?.first?.unreadCount == 0)
    await relaunched.engine.close()
    await world.shutdown()
  }
}
