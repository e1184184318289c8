import Foundation

/// One log line: an event name and fields.
///
/// The rule that makes this safe to ship: fields carry IDs, counts, statuses and durations,
/// never message text or tokens. Every call site in the engine keeps it, and a test sends
/// messages with distinctive text and checks that no line ever contains it.
public struct LogRecord: Sendable, Equatable, CustomStringConvertible {
  public enum Level: String, Sendable, Comparable {
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

  public let level: Level
  public let event: String
  public let fields: [(String, String)]

  public init(_ level: Level, _ event: String, _ fields: [(String, String)] = []) {
    self.level = level
    self.event = event
    self.fields = fields
  }

  public static func == (lhs: LogRecord, rhs: LogRecord) -> Bool {
    lhs.level == rhs.level && lhs.event == rhs.event
      && lhs.fields.elementsEqual(rhs.fields, by: { $0 == $1 })
  }

  /// `level event key=value …`
  public var description: String {
    ([level.rawValue, event] + fields.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
  }
}

/// Where log lines go.
public protocol LogSink: Sendable {
  func write(_ record: LogRecord)
}

/// Drops everything.
public struct NoLogSink: LogSink {
  public init() {}
  public func write(_ record: LogRecord) {}
}

/// Writes lines at or above `minimum` to standard error.
public struct StandardErrorLogSink: LogSink {
  public let minimum: LogRecord.Level

  public init(minimum: LogRecord.Level = .info) { self.minimum = minimum }

  public func write(_ record: LogRecord) {
    guard record.level >= minimum else { return }
    FileHandle.standardError.write(Data((record.description + "\n").utf8))
  }
}
