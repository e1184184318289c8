import ChatData
import Foundation

/// Keeps every log line, so a test can read what was logged.
public final class CapturingLogSink: LogSink, @unchecked Sendable {
  // @unchecked: `records` is touched only while holding `lock`.
  private let lock = NSLock()
  private var records: [LogRecord] = []

  public init() {}

  public func write(_ record: LogRecord) {
    lock.withLock { records.append(record) }
  }

  public var lines: [String] {
    lock.withLock { records.map(\.description) }
  }

  public var events: [String] {
    lock.withLock { records.map(\.event) }
  }
}
