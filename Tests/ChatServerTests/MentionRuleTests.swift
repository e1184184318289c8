import Testing

@testable import ChatServer

/// API.md Part 3, "Mentions": which members a text names.
@Suite struct MentionRuleTests {
  let members: Set<String> = ["alice", "bob", "carol", "d.e-f_1"]

  func find(_ text: String, sender: String = "alice") -> [String] {
    Mentions.find(in: text, members: members, sender: sender)
  }

  @Test func aMemberNamedAfterAnAtIsMentioned() {
    #expect(find("@bob lunch?") == ["bob"])
    #expect(find("lunch, @carol?") == ["carol"])
  }

  @Test func eachUserOnceInTheOrderOfFirstMention() {
    #expect(find("@carol and @bob, @carol again") == ["carol", "bob"])
  }

  @Test func anAtInsideAWordNamesNobody() {
    #expect(find("write to x@bob.com") == [])
    #expect(find("é@bob") == [])
    #expect(find("1@bob") == [])
    #expect(find("_@bob") == [])
  }

  @Test func trailingDotsAreNotPartOfTheName() {
    #expect(find("hi @bob.") == ["bob"])
    #expect(find("hi @bob...") == ["bob"])
    #expect(find("hi @d.e-f_1.") == ["d.e-f_1"])
  }

  @Test func theLongestRunIsTheName() {
    #expect(find("@bobby") == [], "bobby is not a member, and bob is not named")
    #expect(find("@bob-") == [])
  }

  @Test func aNonMemberOrTheSenderIsNotMentioned() {
    #expect(find("@dave @alice") == [])
    #expect(find("@alice", sender: "bob") == ["alice"])
  }

  @Test func capitalsAndPunctuationEndOrRefuseTheName() {
    #expect(find("@Bob") == [], "user ids are lowercase")
    #expect(find("(@bob)") == ["bob"])
    #expect(find("@bob's") == ["bob"])
    #expect(find("@@bob") == ["bob"])
    #expect(find("@") == [])
  }
}
