import ChatServer
import Synchronization

/// Keeps every log record, for tests that read the log.
final class RecordingLogSink: LogSink {
  private let stored = Mutex<[LogRecord]>([])

  func record(_ record: LogRecord) {
    stored.withLock { $0.append(record) }
  }

  var records: [LogRecord] { stored.withLock { $0 } }
}
