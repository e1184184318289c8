/// Why parsing returned no command: help was asked for, or the command line is wrong.
struct CommandError: Error {
  enum Reason {
    case helpRequested
    case usage(String)
  }

  let reason: Reason
  /// The command it is about, from the root down.
  let path: [any ParsableArguments.Type]

  init(_ reason: Reason, path: [any ParsableArguments.Type]) {
    self.reason = reason
    self.path = path
  }
}
