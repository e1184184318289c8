import ChatSimulation
import Foundation

/// `chat-sim`: runs the deterministic fault simulation over many seeds, or replays one.
struct ChatSim {
  var seeds = 1000
  var first: UInt64 = 1
  var seed: UInt64?
  var profile = Profile.quick
  var jobs = ProcessInfo.processInfo.activeProcessorCount
  var printsTrace = false

  static let help = """
    USAGE: chat-sim [--seeds N] [--first N] [--seed N] [--profile quick|full] [--jobs N] [--trace]

    Runs real client engines (one SQLite file each) against the real server logic over a
    simulated network and clock, with faults drawn from each seed, then checks the history:
    nothing lost, nothing duplicated, nothing unexpected, one order on every device.

    OPTIONS:
      --seeds N        How many seeds to run, from --first on (default 1000).
      --first N        The first seed (default 1).
      --seed N         Replay one seed: print its trace hash, and its violations if any.
      --profile NAME   quick (default; what CI runs) or full (a 25-minute fault phase).
      --jobs N         Threads running seeds side by side (default: the number of cores).
      --trace          With --seed: print the whole trace.
      -h, --help       Show this help.

    Exit status: 0 when every seed passed, 1 when any invariant was broken, 2 on bad usage.
    """

  static func parse(_ arguments: [String]) -> ChatSim? {
    var command = ChatSim()
    var remaining = arguments[...]
    func value<T>(_ parse: (String) -> T?) -> T? {
      guard let text = remaining.popFirst() else { return nil }
      return parse(text)
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--seeds":
        guard let count = value({ Int($0) }), count > 0 else { return nil }
        command.seeds = count
      case "--first":
        guard let first = value({ UInt64($0) }) else { return nil }
        command.first = first
      case "--seed":
        guard let seed = value({ UInt64($0) }) else { return nil }
        command.seed = seed
      case "--profile":
        guard let profile = value({ Profile(rawValue: $0) }) else { return nil }
        command.profile = profile
      case "--jobs":
        guard let jobs = value({ Int($0) }), jobs > 0 else { return nil }
        command.jobs = jobs
      case "--trace":
        command.printsTrace = true
      default:
        return nil
      }
    }
    return command
  }

  func run() -> Int32 {
    if let seed {
      let result = SimulationRunner.run(seed: seed, options: SimulationOptions(profile: profile))
      if printsTrace { print(result.trace.joined(separator: "\n")) }
      print("seed \(seed) profile \(profile.rawValue) trace \(result.hashText)")
      if !result.passed { print(result.failureReport) }
      return result.passed ? 0 : 1
    }
    let started = ContinuousClock.now
    let total = seeds
    let progress = Progress(total: total)
    let results = SimulationRunner.run(
      seeds: (0..<UInt64(seeds)).map { first + $0 },
      options: SimulationOptions(profile: profile, keepsTrace: false), threads: jobs
    ) { result in
      progress.finished(result)
    }
    // Failures are replayed with their trace kept, so the report shows the excerpt.
    let failures = results.filter { !$0.passed }.map {
      SimulationRunner.run(seed: $0.seed, options: SimulationOptions(profile: profile))
    }
    let summary = RunSummary(results: results, wallTime: ContinuousClock.now - started)
    print("")
    for failure in failures { print(failure.failureReport + "\n") }
    print(summary.text)
    return summary.failed.isEmpty ? 0 : 1
  }
}

/// Prints one line every 5 % of the seeds, and one for each failed seed as it fails.
final class Progress: @unchecked Sendable {
  // @unchecked: `done` is only touched from `SimulationRunner`'s report, which is serialized.
  private let total: Int
  private var done = 0
  private var failed = 0

  init(total: Int) { self.total = total }

  func finished(_ result: SeedResult) {
    done += 1
    if !result.passed {
      failed += 1
      FileHandle.standardError.write(
        Data("seed \(result.seed) failed: \(result.violations[0])\n".utf8))
    }
    if done % max(1, total / 20) == 0 || done == total {
      FileHandle.standardError.write(Data("\(done)/\(total) seeds, \(failed) failed\n".utf8))
    }
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
  print(ChatSim.help)
  exit(0)
}
guard let command = ChatSim.parse(arguments) else {
  FileHandle.standardError.write(Data((ChatSim.help + "\n").utf8))
  exit(2)
}
exit(command.run())
