import ChatAPI
import ChatDomain
import ChatIdentifiers
import ChatTestSupport
import ChatWorld
import Foundation
import Testing

@testable import ChatData

/// A world with alice (phone), bob (phone) and a one-to-one conversation between them.
struct Pair {
  let world: TestWorld
  let alice: TestDevice
  let bob: TestDevice
  let chat: ConversationID

  static func make(
    start: Bool = true, accessTokenTTL: Duration = .seconds(900),
    staleSendAfter: Duration? = .seconds(24 * 3600)
  ) async throws -> Pair {
    let world = try TestWorld(accessTokenTTL: accessTokenTTL)
    let alice = try await world.device("alice", seed: 1, staleSendAfter: staleSendAfter)
    let bob = try await world.device("bob", seed: 2, staleSendAfter: staleSendAfter)
    let chat = try await alice.list.createConversation(title: "Hiking", memberIDs: [UserID("bob")])
    if start {
      await alice.engine.start()
      await bob.engine.start()
    }
    await world.settle()
    return Pair(world: world, alice: alice, bob: bob, chat: chat)
  }

  /// alice creates a group with bob while bob's socket loses the event that announces it:
  /// bob's list (returned, watched) does not know the group yet.
  static func bobMissesANewGroup() async throws -> (
    Pair, Probe<[ConversationSummary]>, ConversationID
  ) {
    let p = try await Pair.make()
    let list = Probe(p.bob.list.conversations(), on: p.world.executor)
    await p.world.settle()
    p.bob.network.disturbEvents(.skip(1))
    let group = try await p.alice.list.createConversation(title: "G", memberIDs: [UserID("bob")])
    await p.world.settle()
    return (p, list, group)
  }

  /// Watches a conversation on a device, as a screen would.
  func watch(_ device: TestDevice, _ conversation: ConversationID? = nil) -> Probe<[Message]> {
    Probe(device.messages.messages(in: conversation ?? chat), on: world.executor)
  }

  /// Bob's message `text`, posted on the service and held by both devices.
  func bobsMessage(_ text: String = "lunch?") async throws -> MessageID {
    let id = UUID().uuidString.lowercased()
    try await world.post(text, in: chat, as: "bob", clientMessageId: id)
    await world.settle()
    return try #require(MessageID(rawValue: id))
  }

  func close() async {
    await alice.engine.close()
    await bob.engine.close()
    await world.shutdown()
  }
}

extension TestNetwork {
  /// The client message IDs of the sends this device posted, in order.
  var postedIDs: [String] { posts(in: requests).map(\.clientMessageId) }

  /// The texts of the sends this device posted, in order.
  var postedTexts: [String] { posts(in: requests).compactMap(\.text) }

  /// The items of the sends that reached the server, in order.
  var deliveredPosts: [PostItem] { posts(in: delivered) }

  private func posts(in requests: [APIRequest]) -> [PostItem] {
    requests.filter { $0.method == "POST" && $0.path.hasSuffix("/messages") }.compactMap {
      try? APICoding.decode(PostItem.self, from: $0.body)
    }
  }

  /// The `after` values of the catch-ups this device made.
  var catchUpAfters: [Int] {
    requests.filter { $0.method == "GET" && $0.path.hasSuffix("/messages") }.compactMap {
      request in request.query.first { $0.name == "after" }.flatMap { Int($0.value) }
    }
  }

  func count(_ method: String, _ suffix: String) -> Int {
    requests.filter { $0.method == method && $0.path.hasSuffix(suffix) }.count
  }
}

extension Array where Element == Message {
  var texts: [String] { map(\.text) }
}
