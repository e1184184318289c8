import Foundation

/// What a person typed into a search box, as terms a full-text index can answer.
///
/// Two kinds of term, chosen per word of the query:
/// - a **word** (Latin, Cyrillic, Greek, Arabic… text, where spaces separate words): matched by
///   the `unicode61` index as a whole word, the last one also as a prefix ("hik" finds
///   "hiking"), diacritics and case folded;
/// - a **substring** (a word holding Chinese, Japanese, Korean, Thai, Lao, Khmer or Myanmar
///   text, or an emoji: scripts written without spaces between words, where `unicode61` would
///   index a whole sentence as one token): matched anywhere inside the text, through the
///   `trigram` index of the messages that hold such characters. A substring of one or two
///   characters has no trigram: it is looked for in those messages' text directly.
///
/// Every term is required. No input can make a malformed FTS5 expression: each term is quoted.
public struct FullTextQuery: Sendable, Equatable {
  /// Words for the `unicode61` index.
  public var words: [String]
  /// The positions in `words` matched as prefixes: the last word, and any typed with a `*`
  /// after it ("hik* sun" finds "hiking on Sunday").
  public var prefixes: Set<Int>
  /// Substrings for the `trigram` index of unspaced text.
  public var substrings: [String]

  /// Why typed text is not a query.
  public struct Invalid: Error, Equatable, CustomStringConvertible {
    public var description: String
  }

  /// Splits `text` into terms: runs of letters, digits and emoji; anything else separates.
  public init(_ text: String, maximumLength: Int = 512) throws(Invalid) {
    guard text.unicodeScalars.count <= maximumLength else {
      throw Invalid(description: "the search is too long (at most \(maximumLength) characters)")
    }
    let ranges = text.split { !Self.isTermCharacter($0) }.map { $0.startIndex..<$0.endIndex }
    guard !ranges.isEmpty else {
      throw Invalid(description: "type at least one letter, digit or emoji to search")
    }
    words = []
    substrings = []
    prefixes = []
    for range in ranges {
      let term = String(text[range])
      if Self.isUnspaced(term) {
        substrings.append(term)
      } else {
        if range.upperBound < text.endIndex, text[range.upperBound] == "*" {
          prefixes.insert(words.count)
        }
        words.append(term)
      }
    }
    if !words.isEmpty { prefixes.insert(words.count - 1) }
  }

  /// The `unicode61` expression of the words (nil when there are none): quoted words, the last
  /// also matched as a prefix.
  public var wordExpression: String? {
    guard !words.isEmpty else { return nil }
    return words.enumerated().map { index, word in
      prefixes.contains(index) ? Self.quoted(word) + " *" : Self.quoted(word)
    }.joined(separator: " ")
  }

  /// The `trigram` expression of the substrings of three characters or more (nil when there
  /// are none). A quoted string is a phrase of consecutive trigrams: the substring itself.
  public var trigramExpression: String? {
    let long = substrings.filter { $0.unicodeScalars.count >= 3 }
    return long.isEmpty ? nil : long.map(Self.quoted).joined(separator: " AND ")
  }

  /// The substrings too short for a trigram, looked for with `instr` in unspaced text.
  public var shortSubstrings: [String] {
    substrings.filter { $0.unicodeScalars.count < 3 }
  }

  /// How the device's store and the server's (on SQLite) find these terms among the unspaced
  /// messages: conditions to join with AND, and their values in order, over the `trigram`
  /// index `message_search_unspaced` aliased `u` (its rowids those of the `unicode61` index
  /// `message_search`): the trigram phrase, each short substring by `instr` over `u.text`, and
  /// the words, if any, in the `unicode61` index.
  public var unspacedConditions: (conditions: [String], values: [String]) {
    var conditions: [String] = []
    var values: [String] = []
    if let trigram = trigramExpression {
      conditions.append("message_search_unspaced MATCH ?")
      values.append(trigram)
    }
    for short in shortSubstrings {
      conditions.append("instr(lower(u.text), lower(?)) > 0")
      values.append(short)
    }
    if let words = wordExpression {
      conditions.append(
        "u.rowid IN (SELECT rowid FROM message_search WHERE message_search MATCH ?)")
      values.append(words)
    }
    return (conditions, values)
  }

  /// `text` shortened to about `radius` characters either side of the first term it holds
  /// (case and diacritics folded; a word's match runs to the end of its word), marked between
  /// `open` and `close`, `…` where cut: a snippet made from the text itself, for the hits of
  /// the `trigram` index (FTS5's `snippet` counts trigrams, not words) and of a server whose
  /// index cannot make one.
  public func markedSnippet(in text: String, open: String, close: String, radius: Int = 24)
    -> String
  {
    let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
    let inSubstring = substrings.lazy.compactMap { text.range(of: $0, options: options) }.first
    let inWord = words.lazy.compactMap { text.range(of: $0, options: options) }.first.map {
      var end = $0.upperBound
      while end < text.endIndex, text[end].isLetter || text[end].isNumber {
        end = text.index(after: end)
      }
      return $0.lowerBound..<end
    }
    guard let found = inSubstring ?? inWord else {
      return text.count > radius * 2 ? String(text.prefix(radius * 2)) + "…" : text
    }
    let start = text.index(found.lowerBound, offsetBy: -radius, limitedBy: text.startIndex)
    let end = text.index(found.upperBound, offsetBy: radius, limitedBy: text.endIndex)
    return (start == nil || start == text.startIndex ? "" : "…")
      + text[(start ?? text.startIndex)..<found.lowerBound]
      + open + text[found] + close + text[found.upperBound..<(end ?? text.endIndex)]
      + (end == nil || end == text.endIndex ? "" : "…")
  }

  /// A `GLOB` pattern true of text holding an unspaced character: which messages the
  /// `trigram` index holds. Made from the same ranges as the query's test, so the index and the
  /// queries agree on what is unspaced.
  public static let unspacedGlob: String = {
    let classes = unspacedRanges.map { range in
      let low = String(Character(Unicode.Scalar(range.lowerBound)!))
      let high = String(Character(Unicode.Scalar(range.upperBound)!))
      return low + "-" + high
    }
    return "*[" + classes.joined() + "]*"
  }()

  /// Scripts written without spaces between words, and emoji.
  static let unspacedRanges: [ClosedRange<UInt32>] = [
    0x0E00...0x0EFF,  // Thai, Lao
    0x1000...0x109F,  // Myanmar
    0x1100...0x11FF,  // Hangul Jamo
    0x1780...0x17FF,  // Khmer
    0x2600...0x27BF,  // Miscellaneous Symbols, Dingbats (☀, ✈, ❤)
    0x2B00...0x2BFF,  // Miscellaneous Symbols and Arrows (⭐)
    0x2E80...0x2FDF,  // CJK radicals
    0x3040...0x31FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo…
    0x3400...0x4DBF,  // CJK extension A
    0x4E00...0x9FFF,  // CJK unified ideographs
    0xAC00...0xD7AF,  // Hangul syllables
    0xF900...0xFAFF,  // CJK compatibility ideographs
    0xFF66...0xFF9F,  // Half-width katakana
    0x1F000...0x1FAFF,  // Emoji
    0x20000...0x3134F,  // CJK extensions B–G
  ]

  static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
    unspacedRanges.contains { $0.contains(scalar.value) }
  }

  static func isUnspaced(_ term: String) -> Bool {
    term.unicodeScalars.contains(where: isUnspaced)
  }

  /// Letters, digits, and emoji (a keycap's digit counts as a digit already).
  private static func isTermCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber
      || character.unicodeScalars.contains { isUnspaced($0) }
  }

  private static func quoted(_ term: String) -> String {
    "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
