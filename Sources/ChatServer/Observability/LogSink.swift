import Foundation

/// Where the service writes its structured log: one record per request (and one per notable
/// event, such as a live subscription closed for falling behind).
///
/// Records never hold message text or tokens; the fields are ids, route patterns, statuses,
/// durations and error codes.
public protocol LogSink: Sendable {
  func record(_ record: LogRecord)
}

/// One structured log line.
public struct LogRecord: Sendable {
  /// What happened: `request`, `live_dropped`, …
  public var event: String
  /// Key-value pairs in a fixed order.
  public var fields: [(key: String, value: String)]

  public init(event: String, fields: [(key: String, value: String)]) {
    self.event = event
    self.fields = fields
  }

  /// The first value of `key`.
  public subscript(key: String) -> String? {
    fields.first { $0.key == key }?.value
  }

  /// logfmt: `event=request method=POST route=/v1/conversations status=201 duration_ms=0.412`;
  /// values with spaces, quotes or `=` are quoted, `"` and `\\` escaped inside quotes.
  /// (Built on the UTF-8 view: this runs once per request, on the service's executor.)
  public var line: String {
    var line = "event="
    line += event
    for (key, value) in fields {
      line += " "
      line += key
      line += "="
      let needsQuotes =
        value.isEmpty
        || value.utf8.contains {
          $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=")
        }
      guard needsQuotes else {
        line += value
        continue
      }
      line += "\""
      for scalar in value.unicodeScalars {
        if scalar == "\\" || scalar == "\"" { line += "\\" }
        line.unicodeScalars.append(scalar)
      }
      line += "\""
    }
    return line
  }
}

/// Writes each record as a line on standard error.
public struct StandardErrorLogSink: LogSink {
  public init() {}

  public func record(_ record: LogRecord) {
    FileHandle.standardError.write(Data((record.line + "\n").utf8))
  }
}

/// Drops every record.
public struct DiscardingLogSink: LogSink {
  public init() {}
  public func record(_ record: LogRecord) {}
}
