import ChatIdentifiers

/// The members a message's text names (API.md Part 3, "Mentions"): `@` followed by the longest
/// run of user-id characters without its trailing `.`s, where the `@` starts the text or follows
/// a character that is not a letter, digit, `.`, `_` or `-` (so `x@bob.com` names nobody and
/// `hi @bob.` names bob), naming a current member other than the sender; each user once, in the
/// order of first mention. Only the server finds them: clients draw what `mentions` says.
enum Mentions {
  static func find(in text: String, members: Set<String>, sender: String) -> [String] {
    candidates(in: text, sender: sender).filter(members.contains)
  }

  /// The valid user ids the text names, other than the sender, each once, in the order of
  /// first mention: `find` without the membership (PostgreSQL's `chat_post_message` keeps
  /// the current members among them in the send's own statement).
  static func candidates(in text: String, sender: String) -> [String] {
    var found: [String] = []
    var previous: Character?
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      defer { previous = character }
      index = text.index(after: index)
      guard character == "@", !(previous.map(Self.continuesAWord) ?? false) else { continue }
      var end = index
      while end < text.endIndex, Self.isUserIDCharacter(text[end]) { end = text.index(after: end) }
      var name = text[index..<end]
      while name.last == "." { name = name.dropLast() }
      let user = String(name)
      if user != sender, !found.contains(user), UserID(rawValue: user) != nil {
        found.append(user)
      }
    }
    return found
  }

  /// A letter, digit, `.`, `_` or `-`: an `@` after one is inside a word (an e-mail address).
  private static func continuesAWord(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "." || character == "_"
      || character == "-"
  }

  /// Part 1's user-id alphabet, `[a-z0-9._-]`.
  private static func isUserIDCharacter(_ character: Character) -> Bool {
    guard let ascii = character.asciiValue else { return false }
    switch ascii {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
      return true
    default:
      return false
    }
  }
}
