/// One structured log line: an event name, a level, and fields in a fixed order.
///
/// The rule that makes logs safe to ship: fields carry ids, counts, statuses, route patterns and
/// durations, never message text or tokens. Every call site keeps it, and tests send messages
/// with distinctive text and check that no line ever contains it.
public struct LogRecord: Sendable, Equatable, CustomStringConvertible {
  public enum Level: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    private var rank: Int {
      switch self {
      case .debug: 0
      case .info: 1
      case .warning: 2
      case .error: 3
      }
    }

    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
  }

  public var level: Level
  /// What happened: `request`, `send.saved`, `live_dropped`, …
  public var event: String
  public var fields: [(key: String, value: String)]

  public init(_ level: Level, _ event: String, _ fields: [(key: String, value: String)] = []) {
    self.level = level
    self.event = event
    self.fields = fields
  }

  /// The first value of `key`.
  public subscript(key: String) -> String? {
    fields.first { $0.key == key }?.value
  }

  public static func == (lhs: LogRecord, rhs: LogRecord) -> Bool {
    lhs.level == rhs.level && lhs.event == rhs.event
      && lhs.fields.elementsEqual(rhs.fields, by: { $0 == $1 })
  }

  /// logfmt, event first: `event=request level=info method=POST route=/v1/conversations
  /// status=201`. A value that is empty or holds a space, `"`, `=` or a control character is
  /// quoted, with `"` and `\` escaped and control characters written `\n`, `\t`, `\u{…}`, so one
  /// record is always one line.
  public var line: String {
    var line = "event="
    Self.append(event, to: &line)
    line += " level="
    line += level.rawValue
    for (key, value) in fields {
      line += " "
      Self.append(key, to: &line)
      line += "="
      Self.append(value, to: &line)
    }
    return line
  }

  public var description: String { line }

  /// Built on the UTF-8 view: this runs once per request, on the server's hot path.
  private static func append(_ value: String, to line: inout String) {
    let needsQuotes =
      value.isEmpty
      || value.utf8.contains {
        $0 <= UInt8(ascii: " ") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=")
          || $0 == 0x7F
      }
    guard needsQuotes else {
      line += value
      return
    }
    line += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\\", "\"":
        line += "\\"
        line.unicodeScalars.append(scalar)
      case "\n": line += "\\n"
      case "\r": line += "\\r"
      case "\t": line += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        line += "\\u{\(String(scalar.value, radix: 16))}"
      default: line.unicodeScalars.append(scalar)
      }
    }
    line += "\""
  }
}
