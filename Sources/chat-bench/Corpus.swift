import ChatDomain
import Support

/// `value` in lowercase hexadecimal, zero-padded to `digits`.
private func hex(_ value: UInt64, _ digits: Int) -> String {
  let text = String(value, radix: 16)
  return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// The benchmarks draw from `SplitMix64`, seeded, so every run writes the same messages.
extension SplitMix64 {
  /// A UUID version 7 string for a message written at `millis` (Unix milliseconds): what a
  /// device's `UUIDv7Generator` makes, so IDs rise with time as they do in real data.
  mutating func uuidV7String(millis: UInt64) -> String {
    let random = next()
    let low = next()
    let a = hex(millis >> 16, 8)
    let b = hex(millis & 0xFFFF, 4)
    let c = hex(0x7000 | (random & 0x0FFF), 4)
    let d = hex(0x8000 | ((low >> 48) & 0x3FFF), 4)
    let e = hex(low & 0xFFFF_FFFF_FFFF, 12)
    return "\(a)-\(b)-\(c)-\(d)-\(e)"
  }

  /// A UUID-shaped string (version 4 layout), lowercase.
  mutating func uuidString() -> String {
    let high = next()
    let low = next()
    let a = hex(high >> 32, 8)
    let b = hex((high >> 16) & 0xFFFF, 4)
    let c = hex(0x4000 | (high & 0x0FFF), 4)
    let d = hex(0x8000 | ((low >> 48) & 0x3FFF), 4)
    let e = hex(low & 0xFFFF_FFFF_FFFF, 12)
    return "\(a)-\(b)-\(c)-\(d)-\(e)"
  }
}

/// Varied message text: a vocabulary of made-up words drawn with Zipf's law (a few words are
/// everywhere, most are rare, as in real chat), 1 to 24 words a message, some punctuation.
/// One message in `unspacedEvery` is Chinese/Japanese-like instead: made-up words of two or
/// three characters from kanji and kana, written without spaces (the messages the `trigram`
/// index holds).
struct Corpus: Sendable {
  /// The words, most frequent first.
  let words: [String]
  /// Cumulative Zipf weights, for drawing a word by rank.
  private let cumulative: [Double]
  /// The unspaced words (2–3 characters), most frequent first.
  let unspacedWords: [String]
  private let unspacedCumulative: [Double]
  /// One message in this many is unspaced.
  static let unspacedEvery: UInt64 = 10

  init(vocabularySize: Int = 8_000, seed: UInt64 = 7) {
    var generator = SplitMix64(seed: seed)
    let onsets = [
      "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
      "br", "ch", "cl", "dr", "fl", "gr", "pl", "sh", "st", "th", "tr", "qu",
    ]
    let vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "ie", "y"]
    let codas = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"]
    var seen: Set<String> = []
    var words: [String] = []
    while words.count < vocabularySize {
      let syllables = 1 + Int(generator.next() % 3)
      var word = ""
      for _ in 0..<syllables {
        word += onsets[Int(generator.next() % UInt64(onsets.count))]
        word += vowels[Int(generator.next() % UInt64(vowels.count))]
        word += codas[Int(generator.next() % UInt64(codas.count))]
      }
      if word.count >= 2, seen.insert(word).inserted { words.append(word) }
    }
    self.words = words
    cumulative = Self.zipf(vocabularySize)
    // Common kanji and kana: made-up words of 2–3 of them.
    let characters = Array(
      "日本人大年一中出見子上行生時事自分何言国会話私今気手前後東京北海道山川田町花雨雪空"
        + "朝夜昼食飲買売読書聞休来帰会社学校駅電車店家族友達先週末明天我们你他她去吃烤鸭"
        + "好很说看写走到给这那里没有的了是在和也都就要可以能想知道开时候小心明白谢再见"
        + "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわん"
        + "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン")
    var unspaced: [String] = []
    var seenUnspaced: Set<String> = []
    while unspaced.count < 2_000 {
      let length = 2 + Int(generator.next() % 2)
      let word = String(
        (0..<length).map { _ in characters[Int(generator.next() % UInt64(characters.count))] })
      if seenUnspaced.insert(word).inserted { unspaced.append(word) }
    }
    unspacedWords = unspaced
    unspacedCumulative = Self.zipf(unspaced.count)
  }

  private static func zipf(_ count: Int) -> [Double] {
    var total = 0.0
    return (1...count).map { rank in
      total += 1 / Double(rank)
      return total
    }
  }

  /// The rank (0 = most frequent) of a random word.
  func drawRank(_ generator: inout SplitMix64) -> Int {
    Self.draw(&generator, cumulative)
  }

  private static func draw(_ generator: inout SplitMix64, _ cumulative: [Double]) -> Int {
    let target = Double(generator.next() >> 11) / Double(1 << 53) * cumulative[cumulative.count - 1]
    var low = 0
    var high = cumulative.count - 1
    while low < high {
      let middle = (low + high) / 2
      if cumulative[middle] < target { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// One message; `ranks` receives the ranks of the words it holds (for document frequencies),
  /// `unspacedRanks` those of an unspaced message's words.
  func message(_ generator: inout SplitMix64, ranks: inout [Int], unspacedRanks: inout [Int])
    -> String
  {
    ranks.removeAll(keepingCapacity: true)
    unspacedRanks.removeAll(keepingCapacity: true)
    if generator.next() % Self.unspacedEvery == 0 {
      var text = ""
      for _ in 0..<(2 + Int(generator.next() % 8)) {
        let rank = Self.draw(&generator, unspacedCumulative)
        unspacedRanks.append(rank)
        text += unspacedWords[rank]
      }
      return text + (generator.next() % 3 == 0 ? "。" : "")
    }
    // Mostly short, sometimes long: 1 + (0…7) + (0…7) + (0…9) words.
    let count =
      1 + Int(generator.next() % 8) + Int(generator.next() % 8)
      + (generator.next() % 4 == 0 ? Int(generator.next() % 10) : 0)
    var text = ""
    for index in 0..<count {
      let rank = drawRank(&generator)
      ranks.append(rank)
      var word = words[rank]
      if index == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
      if index > 0 { text += generator.next() % 9 == 0 ? ", " : " " }
      text += word
    }
    switch generator.next() % 6 {
    case 0: text += "?"
    case 1: text += "!"
    case 2: text += "."
    default: break
    }
    return text
  }
}
