/// A wrong command line: printed with the command's help, exit status 64 (`EX_USAGE`).
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public let message: String
  /// The command whose help to print; nil for the top-level help.
  public let command: String?

  public init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }

  public var description: String { message }
}

/// The arguments left to parse, consumed from the front. Options may come before or after
/// positional arguments; `--` ends the options.
public struct ArgumentCursor {
  private var remaining: [String]
  private var positionalOnly = false
  let command: String?

  public init(_ arguments: [String], command: String? = nil) {
    remaining = arguments
    self.command = command
  }

  public var isEmpty: Bool { remaining.isEmpty }

  /// What is left, unparsed.
  public var rest: [String] { remaining }

  /// Removes `--name value` or `--name=value` and returns the value.
  public mutating func option(_ name: String) throws(UsageError) -> String? {
    var index = 0
    while index < remaining.count {
      let argument = remaining[index]
      if argument == "--" { return nil }
      if argument == "--\(name)" {
        guard index + 1 < remaining.count else {
          throw UsageError("--\(name) needs a value", command: command)
        }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...(index + 1))
        return value
      }
      if argument.hasPrefix("--\(name)=") {
        remaining.remove(at: index)
        return String(argument.dropFirst(name.count + 3))
      }
      index += 1
    }
    return nil
  }

  /// Removes `--name` and returns whether it was there.
  public mutating func flag(_ name: String) -> Bool {
    guard let index = remaining.firstIndex(of: "--\(name)"),
      !remaining[..<index].contains("--")
    else { return false }
    remaining.remove(at: index)
    return true
  }

  /// Removes and returns the next positional argument.
  public mutating func positional(_ name: String) throws(UsageError) -> String {
    guard let value = nextPositional() else {
      throw UsageError("missing <\(name)>", command: command)
    }
    return value
  }

  /// Removes and returns the next positional argument, if any.
  public mutating func nextPositional() -> String? {
    while let first = remaining.first {
      if first == "--" && !positionalOnly {
        positionalOnly = true
        remaining.removeFirst()
        continue
      }
      if !positionalOnly && first.hasPrefix("--") { return nil }
      remaining.removeFirst()
      return first
    }
    return nil
  }

  /// Fails on anything left over: an unknown option or an extra argument.
  public func finish() throws(UsageError) {
    guard let first = remaining.first(where: { $0 != "--" }) else { return }
    if first.hasPrefix("--") {
      throw UsageError("unknown option \(first)", command: command)
    }
    throw UsageError("unexpected argument '\(first)'", command: command)
  }
}
