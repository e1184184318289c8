import ChatIdentifiers
import Foundation
import Testing

@Suite struct IdentifierTests {
  @Test func userIDsFollowTheContractAlphabet() {
    #expect(UserID(rawValue: "alice.b-c_9") != nil)
    #expect(UserID(rawValue: "") == nil)
    #expect(UserID(rawValue: "Alice") == nil)
    #expect(UserID(rawValue: "a b") == nil)
    #expect(UserID(rawValue: String(repeating: "a", count: 64)) != nil)
    #expect(UserID(rawValue: String(repeating: "a", count: 65)) == nil)
  }

  @Test func messageIDsAreCanonicalLowercaseUUIDs() {
    let id = MessageID(rawValue: "0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B")
    #expect(id?.rawValue == "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    #expect(MessageID(rawValue: "not-a-uuid") == nil)
  }

  @Test(arguments: [
    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "0193A1B2-c3d4-7E5F-8a9b-0C1D2E3F4A5B",
    "00000000-0000-0000-0000-000000000000", "0193a1b2c3d4-7e5f-8a9b-0c1d2e3f4a5b-",
    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5bb",
    "0193a1b2-c3d4-7e5f-8a9b_0c1d2e3f4a5b", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5g",
    "{0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5}", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5é", "",
  ])
  func messageIDsAcceptExactlyWhatFoundationsUUIDParses(text: String) {
    let expected = UUID(uuidString: text)?.uuidString.lowercased()
    #expect(MessageID(rawValue: text)?.rawValue == expected)
  }

  @Test func conversationIDsMustBeSafeInAPath() {
    #expect(ConversationID(rawValue: "c_123-abc") != nil)
    #expect(ConversationID(rawValue: "a/b") == nil)
    #expect(ConversationID(rawValue: "") == nil)
  }

  /// The server's check of a user id (dev-login, members, tokens) is `UserID`'s.
  @Test func userIdsAreOneTo64OfTheAllowedCharacters() {
    for valid in ["a", "alice", "a.b_c-9", String(repeating: "z", count: 64)] {
      #expect(UserID(rawValue: valid) != nil, "\(valid)")
    }
    for invalid in ["", "Alice", "al ice", "al/ice", "é", String(repeating: "z", count: 65), "a\n"]
    {
      #expect(UserID(rawValue: invalid) == nil, "\(invalid)")
    }
  }

  /// The conversation ids the reference server issues are UUIDs, read in any case, kept in
  /// lowercase; anything else is malformed there, though a device treats ids as opaque.
  @Test func serverIssuedConversationIDsAreLowercaseUUIDs() {
    let id = ConversationID(serverIssued: "0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B")
    #expect(id?.rawValue == "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    #expect(ConversationID(serverIssued: "c_123-abc") == nil)
    #expect(ConversationID(rawValue: "c_123-abc") != nil)
  }
}
