/// ANSI styles and display widths for the screen.
enum Style {
  static let reset = "\u{1B}[0m"
  static let bold = "\u{1B}[1m"
  static let dim = "\u{1B}[2m"
  static let reverse = "\u{1B}[7m"
  static let red = "\u{1B}[31m"
  static let green = "\u{1B}[32m"
  static let yellow = "\u{1B}[33m"
  static let blue = "\u{1B}[34m"
  static let cyan = "\u{1B}[36m"
}

/// A line of text with styled runs; measured without its escape codes.
struct StyledLine: Equatable {
  private(set) var runs: [(text: String, style: String)] = []

  init() {}

  init(_ text: String, style: String = "") {
    append(text, style: style)
  }

  /// Adds text; control characters in it are made harmless first (see `terminalSafe`).
  mutating func append(_ text: String, style: String = "") {
    runs.append((text.terminalSafe, style))
  }

  /// Adds another line's runs after this one's.
  mutating func append(_ line: StyledLine) {
    runs += line.runs
  }

  var plain: String { runs.map(\.text).joined() }
  var width: Int { TextWidth.of(plain) }

  /// The line cut or padded to exactly `columns` cells, with its styles.
  func rendered(columns: Int) -> String {
    var output = ""
    var used = 0
    for run in runs {
      guard used < columns else { break }
      let cut = TextWidth.prefix(run.text, fitting: columns - used)
      used += TextWidth.of(cut)
      output += run.style.isEmpty ? cut : run.style + cut + Style.reset
    }
    return output + String(repeating: " ", count: max(0, columns - used))
  }

  static func == (lhs: StyledLine, rhs: StyledLine) -> Bool {
    lhs.runs.elementsEqual(rhs.runs) { $0.text == $1.text && $0.style == $1.style }
  }
}

/// How many terminal cells text takes: wide (East Asian, emoji) characters take two, combining
/// marks none. An approximation of `wcwidth`, enough for a chat screen.
enum TextWidth {
  static func of(_ text: String) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  static func of(_ character: Character) -> Int {
    guard let first = character.unicodeScalars.first else { return 0 }
    if first.value < 0x20 || (0x7F..<0xA0).contains(first.value) { return 0 }
    if character.unicodeScalars.count > 1,
      character.unicodeScalars.contains(where: {
        $0.properties.isEmojiPresentation || $0.value == 0xFE0F
      })
    {
      return 2
    }
    switch first.value {
    case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
      0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1FAFF, 0x20000...0x3FFFD:
      return 2
    default:
      return first.properties.isEmojiPresentation ? 2 : 1
    }
  }

  /// The longest prefix of `text` that fits in `columns` cells.
  static func prefix(_ text: String, fitting columns: Int) -> String {
    var used = 0
    var result = ""
    for character in text {
      let width = of(character)
      guard used + width <= columns else { break }
      used += width
      result.append(character)
    }
    return result
  }

  /// `text` in lines of at most `columns` cells, broken at spaces where possible.
  static func wrap(_ text: String, columns: Int) -> [String] {
    guard columns > 0 else { return [] }
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
        let candidate = line.isEmpty ? String(word) : line + " " + word
        if of(candidate) <= columns {
          line = candidate
          continue
        }
        if !line.isEmpty { lines.append(line) }
        var rest = String(word)
        while of(rest) > columns {
          let head = prefix(rest, fitting: columns)
          lines.append(head)
          rest = String(rest.dropFirst(head.count))
        }
        line = rest
      }
      lines.append(line)
    }
    return lines
  }
}

extension String {
  /// The text with every control character (C0, DEL, C1) replaced by `�`, so text from other
  /// people (messages, titles, names) cannot move the cursor, clear the screen, set the window
  /// title or write the clipboard of whoever reads it.
  var terminalSafe: String {
    guard unicodeScalars.contains(where: \.isTerminalControl) else { return self }
    var result = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      result.append(scalar.isTerminalControl ? "\u{FFFD}" : scalar)
    }
    return String(result)
  }
}

extension Unicode.Scalar {
  fileprivate var isTerminalControl: Bool {
    value < 0x20 || (0x7F...0x9F).contains(value)
  }
}
