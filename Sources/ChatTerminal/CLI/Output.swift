import Foundation

/// Where a command writes: standard output for results, standard error for notes and errors.
/// With `--json`, results are JSON and notes are silent.
public final class Output: @unchecked Sendable {
  // @unchecked: writes go straight to file handles, which are thread-safe; `lines` is only
  // used by tests, from one task.
  public let json: Bool
  private let standardOutput: (String) -> Void
  private let standardError: (String) -> Void
  /// True when standard error is a terminal: progress is shown only there.
  public let isInteractive: Bool

  public init(
    json: Bool, isInteractive: Bool = isatty(STDERR_FILENO) == 1,
    standardOutput: @escaping (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) },
    standardError: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
  ) {
    self.json = json
    self.isInteractive = isInteractive
    self.standardOutput = standardOutput
    self.standardError = standardError
  }

  /// A result line.
  public func line(_ text: String) {
    standardOutput(text + "\n")
  }

  /// A result as one JSON document (`--json`).
  public func json<T: Encodable>(_ value: T) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(value) else { return }
    standardOutput(String(decoding: data, as: UTF8.self) + "\n")
  }

  /// A note for a person (not in `--json` mode).
  public func note(_ text: String) {
    guard !json else { return }
    standardError(text + "\n")
  }

  /// Progress on one line of a terminal; nothing in `--json` mode or when not a terminal.
  public func progress(_ text: String) {
    guard !json, isInteractive else { return }
    standardError("\r\u{1B}[2K" + text)
  }

  public func endProgress() {
    guard !json, isInteractive else { return }
    standardError("\r\u{1B}[2K")
  }

  /// An error: one line, `chat: error: …`, or a JSON object with `--json`.
  public func error(_ text: String) {
    let text = text.terminalSafe
    if json {
      let escaped = text.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: " ")
      standardError("{\"error\":\"\(escaped)\"}\n")
    } else {
      standardError("chat: error: \(text)\n")
    }
  }
}
