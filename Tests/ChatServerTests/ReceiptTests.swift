import ChatServer
import Testing

@Suite struct ReceiptTests {
  let server: TestServer
  let alice: Session
  let bob: Session
  let conversation: String

  init() async throws {
    server = try TestServer()
    alice = try await server.login("alice")
    bob = try await server.login("bob")
    conversation = try await server.createConversation(by: alice, with: ["bob"])
  }

  func receipts(_ session: Session, in conversation: String? = nil) async -> [String: Any] {
    let response = await server.request(
      "GET", "/v1/conversations/\(conversation ?? self.conversation)/receipts",
      token: session.accessToken)
    #expect(response.status == 200)
    return response.object
  }

  func post(
    _ kind: String, _ sequence: Int, as session: Session, in conversation: String? = nil
  ) async -> Int {
    await server.request(
      "POST", "/v1/conversations/\(conversation ?? self.conversation)/\(kind)",
      token: session.accessToken, body: #"{"upToSequence":\#(sequence)}"#
    ).status
  }

  func numbers(_ object: [String: Any]) -> [Int] {
    [object["deliveredUpTo"] as? Int ?? -1, object["readUpTo"] as? Int ?? -1]
  }

  func member(_ user: String, in object: [String: Any]) -> [Int] {
    let members = object["members"] as? [[String: Any]] ?? []
    return numbers(members.first { $0["userId"] as? String == user } ?? [:])
  }

  @Test func topLevelNumbersAreTheOtherMembersAndMembersListsEveryone() async throws {
    for index in 1...3 { _ = try await server.send("m\(index)", to: conversation, as: alice) }
    let forAlice = await receipts(alice)
    #expect(numbers(forAlice) == [0, 0])
    let members = forAlice["members"] as? [[String: Any]] ?? []
    #expect(members.compactMap { $0["userId"] as? String } == ["alice", "bob"])
    #expect(member("alice", in: forAlice) == [3, 3], "posting raised alice's own numbers")
    #expect(numbers(await receipts(bob)) == [3, 3])
  }

  @Test func numbersOnlyRiseAndReadingImpliesDelivery() async throws {
    for index in 1...5 { _ = try await server.send("m\(index)", to: conversation, as: alice) }
    #expect(await post("delivered", 2, as: bob) == 204)
    #expect(numbers(await receipts(alice)) == [2, 0])
    #expect(await post("read", 1, as: bob) == 204)
    #expect(numbers(await receipts(alice)) == [2, 1])
    #expect(await post("delivered", 1, as: bob) == 204)
    #expect(await post("read", 0, as: bob) == 204)
    #expect(numbers(await receipts(alice)) == [2, 1], "lower numbers change nothing")
    #expect(await post("read", 4, as: bob) == 204)
    #expect(numbers(await receipts(alice)) == [4, 4], "read 4 raised delivered to 4")
    #expect(await post("delivered", 5, as: bob) == 204)
    #expect(numbers(await receipts(alice)) == [5, 4])
  }

  @Test func aNumberAboveTheLastSequenceOrBelowZeroIsInvalid() async throws {
    _ = try await server.send("one", to: conversation, as: alice)
    #expect(await post("read", 2, as: bob) == 422)
    #expect(await post("delivered", -1, as: bob) == 422)
    #expect(await post("read", 0, as: bob) == 204)
    #expect(await post("read", 1, as: bob) == 204)
  }

  @Test func numbersArePerUserAcrossDevices() async throws {
    let bobTablet = try await server.login("bob", device: "tablet")
    for index in 1...3 { _ = try await server.send("m\(index)", to: conversation, as: alice) }
    #expect(await post("read", 2, as: bob) == 204)
    #expect(member("bob", in: await receipts(bobTablet)) == [2, 2])
    let list = await server.request("GET", "/v1/conversations", token: bobTablet.accessToken)
    #expect(list.items.first?["readUpTo"] as? Int == 2)
    #expect(await post("read", 1, as: bobTablet) == 204)
    #expect(member("bob", in: await receipts(bob)) == [2, 2])
  }

  @Test func aloneTheTopLevelNumbersAreTheLastSequence() async throws {
    let solo = try await server.createConversation(by: alice, with: [])
    #expect(numbers(await receipts(alice, in: solo)) == [0, 0])
    for index in 1...4 { _ = try await server.send("note \(index)", to: solo, as: alice) }
    #expect(numbers(await receipts(alice, in: solo)) == [4, 4])
  }

  @Test func inAGroupTheTopLevelNumbersAreTheLowestOfTheOthers() async throws {
    let carol = try await server.login("carol")
    let group = try await server.createConversation(by: alice, with: ["bob", "carol"])
    for index in 1...6 { _ = try await server.send("m\(index)", to: group, as: alice) }
    #expect(await post("read", 5, as: bob, in: group) == 204)
    #expect(await post("delivered", 6, as: carol, in: group) == 204)
    #expect(await post("read", 3, as: carol, in: group) == 204)
    #expect(numbers(await receipts(alice, in: group)) == [5, 3])
    // For bob: the others are alice (6, 6, by posting) and carol (6, 3).
    #expect(numbers(await receipts(bob, in: group)) == [6, 3])
  }

  @Test func postingRaisesTheSendersOwnNumbers() async throws {
    _ = try await server.send("one", to: conversation, as: alice)
    _ = try await server.send("two", to: conversation, as: bob)
    #expect(member("bob", in: await receipts(alice)) == [2, 2])
    #expect(member("alice", in: await receipts(alice)) == [1, 1])
    let list = await server.request("GET", "/v1/conversations", token: bob.accessToken)
    #expect(list.items.first?["readUpTo"] as? Int == 2)
    #expect(list.items.first?["lastSequence"] as? Int == 2)
  }
}
