import Glibc

/// Writes each record as one logfmt line to a file descriptor: standard error, or a file opened
/// for appending (created 0600). One `write(2)` per line, so lines from concurrent writers never
/// interleave (`O_APPEND` keeps them whole in a shared file too).
public final class FileLogSink: LogSink {
  private let descriptor: Int32
  private let ownsDescriptor: Bool

  /// Standard error.
  public init() {
    descriptor = STDERR_FILENO
    ownsDescriptor = false
  }

  /// Appends to `path`, creating it with mode 0600.
  public init(path: String) throws(LogFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw LogFileError(path: path, errno: errno) }
    descriptor = fd
    ownsDescriptor = true
  }

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  public func record(_ record: LogRecord) {
    var bytes = Array(record.line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 && errno == EINTR { continue }
        // A full disk or a closed pipe loses log lines, never requests.
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
