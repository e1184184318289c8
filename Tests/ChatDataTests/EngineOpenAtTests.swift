import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// API.md Part 3, "opening at a message", on the device: a conversation opens centred on a
/// message (a quote, a search hit, the first unread) from the database when it holds it, else
/// after one `?around=` page; rows keep their identities, older pages continue below it, and
/// `showNewest` goes back.
@Suite(.timeLimit(.minutes(3)))
struct EngineOpenAtTests {
  private func arounds(_ device: TestDevice) -> [String] {
    device.network.requests.compactMap { $0.query.first { $0.name == "around" }?.value }
  }

  @Test func openingAtAMessageTheDeviceDoesNotHoldFetchesAPageAroundIt() async throws {
    let p = try await Pair.make()
    for n in 1...200 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    // A new device of alice's holds only the newest page.
    let tablet = try await p.world.device("alice", "ipad", seed: 5)
    await tablet.engine.start()
    let screen = p.watch(tablet)
    await p.world.settle()
    #expect(screen.latest?.map(\.sequence) == Array(151...200))
    try await tablet.messages.open(at: 40, in: p.chat)
    await p.world.settle()
    #expect(arounds(tablet) == ["40"])
    // The server's page and the window pick alike: 40, then older and newer by turns.
    #expect(screen.latest?.map(\.sequence) == Array(15...64))
    #expect(screen.latest?.first { $0.sequence == 40 }?.text == "m40")
    // Scrolling up continues below the window, from the server, to the beginning.
    #expect(try await tablet.messages.loadOlder(in: p.chat) == false)
    await p.world.settle()
    let befores = tablet.network.requests.compactMap {
      $0.query.first { $0.name == "before" }?.value
    }
    #expect(befores == ["15"])
    #expect(screen.latest?.first?.sequence == 1)
    #expect(screen.latest?.contains { $0.sequence == 40 } == true)
    await tablet.messages.showNewest(in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.map(\.sequence) == Array(151...200))
    await tablet.engine.close()
    await p.close()
  }

  @Test func openingAtAHeldMessageReadsOnlyTheDatabaseAndKeepsMyUnsentAtTheNewest()
    async throws
  {
    let p = try await Pair.make()
    for n in 1...60 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let screen = p.watch(p.alice)
    await p.world.settle()
    p.alice.network.isOnline = false
    let unsent = try await p.alice.messages.send("on my way", in: p.chat)
    try await p.alice.messages.open(at: 58, in: p.chat)
    await p.world.settle()
    #expect(arounds(p.alice).isEmpty)
    // 58 sits three from the newest: the window fills from below, and reaches my unsent one.
    #expect(screen.latest?.compactMap(\.sequence) == Array(11...60))
    #expect(screen.latest?.last?.id == unsent)
    try await p.alice.messages.open(at: 30, in: p.chat)
    await p.world.settle()
    #expect(screen.latest?.compactMap(\.sequence) == Array(5...54))
    #expect(screen.latest?.contains { $0.id == unsent } == false)
    await p.close()
  }

  @Test func openingAtAMessageNotHeldWhileOfflineFailsAndLeavesTheScreenAsItWas() async throws {
    let p = try await Pair.make()
    for n in 1...120 { try await p.world.post("m\(n)", in: p.chat, as: "bob") }
    let tablet = try await p.world.device("alice", "ipad", seed: 5)
    await tablet.engine.start()
    let screen = p.watch(tablet)
    await p.world.settle()
    tablet.network.isOnline = false
    await #expect(throws: ChatError.self) {
      try await tablet.messages.open(at: 10, in: p.chat)
    }
    // Nothing moved: the screen still shows the newest.
    await p.world.settle()
    #expect(screen.latest?.map(\.sequence) == Array(71...120))
    await tablet.engine.close()
    await p.close()
  }
}
