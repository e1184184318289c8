#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where log records go: the one logging seam of the client engine, the server and the tools.
public protocol LogSink: Sendable {
  func write(_ record: LogRecord)
}

/// Drops every record.
public struct DiscardingLogSink: LogSink {
  public init() {}
  public func write(_ record: LogRecord) {}
}

/// Writes each record at or above `minimum` as one logfmt line to a file descriptor: standard
/// error, or a file opened for appending (created 0600). One `write(2)` per line, so lines from
/// concurrent writers never interleave (`O_APPEND` keeps them whole in a shared file too).
public final class FileLogSink: LogSink {
  public let minimum: LogRecord.Level
  private let descriptor: Int32
  private let ownsDescriptor: Bool

  /// Standard error.
  public init(minimum: LogRecord.Level = .debug) {
    self.minimum = minimum
    descriptor = STDERR_FILENO
    ownsDescriptor = false
  }

  /// Appends to `path`, creating it with mode 0600.
  public init(path: String, minimum: LogRecord.Level = .debug) throws(LogFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw LogFileError(path: path, errno: errno) }
    self.minimum = minimum
    descriptor = fd
    ownsDescriptor = true
  }

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  public func write(_ record: LogRecord) {
    guard record.level >= minimum else { return }
    var bytes = Array(record.line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        #if canImport(Glibc)
          let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        #else
          let written = Darwin.write(
            descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        #endif
        if written < 0 && errno == EINTR { continue }
        // A full disk or a closed pipe loses log lines, never the work being logged.
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}

/// The log file could not be opened: fix the path or its permissions.
public struct LogFileError: Error, CustomStringConvertible {
  public let path: String
  public let errno: Int32

  public var description: String {
    "cannot open the log file \(path): \(String(cString: strerror(errno)))"
  }
}
