import Support

/// Keeps every log record, so a test can read what was logged.
public final class CapturingLogSink: LogSink, Sendable {
  private let stored = Locked<[LogRecord]>([])

  public init() {}

  public func write(_ record: LogRecord) {
    stored.withLock { $0.append(record) }
  }

  public var records: [LogRecord] { stored.value }

  public var lines: [String] { records.map(\.line) }

  public var events: [String] { records.map(\.event) }
}
