import ArgumentParsing
import ChatData
import ChatSimulation
import Foundation

/// `chat-sim`: runs the deterministic fault simulation over many seeds, or replays one.
struct ChatSim: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat-sim",
    abstract: "Runs the deterministic fault simulation over many seeds, or replays one.",
    discussion: """
      Runs real client engines (one SQLite file each) against the real server logic over a
      simulated network and clock, with faults drawn from each seed, then checks the history:
      nothing lost, nothing duplicated, nothing unexpected, one order on every device.

      EXIT STATUS: 0 when every seed passed, 1 when any invariant was broken, 64 on bad usage.
      """)

  @Option(
    help: ArgumentHelp("How many seeds to run, from --first on.", valueName: "N"),
    transform: Int.inRange(1...))
  var seeds = 1000
  @Option(help: ArgumentHelp("The first seed.", valueName: "N")) var first: UInt64 = 1
  @Option(
    help: ArgumentHelp(
      "Replay one seed: print its trace hash, and its violations if any.", valueName: "N"))
  var seed: UInt64?
  @Option(
    help: ArgumentHelp(
      "quick (the default; what CI runs) or full (a 25-minute fault phase).",
      valueName: "NAME"),
    transform: ChatSim.profile)
  var profile = Profile.quick
  @Option(
    help: ArgumentHelp(
      "Threads running seeds side by side; the default is this machine's number of cores.",
      valueName: "N"),
    transform: Int.inRange(1...))
  var jobs = ProcessInfo.processInfo.activeProcessorCount
  @Flag(name: .customLong("trace"), help: "With --seed: print the whole trace.")
  var printsTrace = false
  @Option(
    name: .customLong("known-bug"),
    help: ArgumentHelp(
      "Put a known bug back, to find seeds that reach it (the regression seeds' search): "
        + SimulationOptions.knownBugNames.joined(separator: ", ") + ".",
      valueName: "NAME"),
    transform: ChatSim.knownBug)
  var knownBug: String? = nil
  @Option(
    help: ArgumentHelp(
      "A fault plan aimed at one rule, on top of each seed's own: "
        + Focus.allCases.map(\.rawValue).joined(separator: ", ") + ".",
      valueName: "NAME"),
    transform: ChatSim.focus)
  var focus = Focus.none
  @Flag(help: "Leave out edits and deletes: users only send (the workload before issue 13).")
  var withoutEdits = false
  @Flag(help: "Leave out member changes: nobody adds, removes or leaves (before groups changed).")
  var withoutMemberChanges = false
  @Flag(help: "Leave out photos and documents: no uploads, no downloads (before media).")
  var withoutMedia = false
  @Flag(help: "Leave out reactions, replies and mentions (API.md Part 3; before issue 35).")
  var withoutPartThree = false
  @Flag(help: "Kills and crashes never lose power (the faults before issue 38).")
  var withoutPowerLoss = false
  @Option(
    help: ArgumentHelp(
      "Devices keep a window of N messages per conversation and prune (retention).",
      valueName: "N"),
    transform: Int.inRange(1...))
  var retainMessages: Int?
  @Option(
    help: ArgumentHelp(
      "The stale-send threshold of every device: a message that waited longer is held, and "
        + "its user sends it now or discards it.",
      valueName: "SECONDS"),
    transform: Int.inRange(1...))
  var staleAfter: Int?

  @Sendable static func focus(_ text: String) throws -> Focus {
    guard let focus = Focus(rawValue: text) else {
      throw ValidationError("one of " + Focus.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return focus
  }

  @Sendable static func knownBug(_ text: String) throws -> String? {
    guard SimulationOptions.knownBugNames.contains(text) else {
      throw ValidationError("one of " + SimulationOptions.knownBugNames.joined(separator: ", "))
    }
    return text
  }

  /// The run's options: `profile`, the trace kept or not, and the known bug if any.
  func options(keepsTrace: Bool = true) -> SimulationOptions {
    var options = SimulationOptions(profile: profile, keepsTrace: keepsTrace)
    if let knownBug { _ = options.putBack(knownBug) }
    options.focus = focus
    options.editsAndDeletes = !withoutEdits
    options.memberChanges = !withoutMemberChanges
    options.partThree = !withoutPartThree
    options.media = !withoutMedia
    options.powerLoss = !withoutPowerLoss
    options.retainMessages = retainMessages
    options.staleAfter = staleAfter.map { .seconds($0) }
    return options
  }

  @Sendable static func profile(_ text: String) throws -> Profile {
    guard let profile = Profile(rawValue: text) else {
      throw ValidationError("one of " + Profile.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return profile
  }

  /// Exits with 1 when any seed broke an invariant.
  func run() async throws {
    if let seed {
      let result = await SimulationRunner.run(seed: seed, options: options())
      if printsTrace { print(result.trace.joined(separator: "\n")) }
      print("seed \(seed) profile \(profile.rawValue) trace \(result.hashText)")
      guard result.passed else {
        print(result.failureReport)
        throw ExitCode.failure
      }
      return
    }
    let started = ContinuousClock.now
    let total = seeds
    let progress = Progress(total: total)
    // Blocks this thread, which has nothing else to do, while the seeds run on threads of
    // their own.
    let results = SimulationRunner.run(
      seeds: (0..<UInt64(seeds)).map { first + $0 },
      options: options(keepsTrace: false), threads: jobs
    ) { result in
      progress.finished(result)
    }
    // Failures are replayed with their trace kept, so the report shows the excerpt.
    var failures: [SeedResult] = []
    for failed in results where !failed.passed {
      failures.append(
        await SimulationRunner.run(seed: failed.seed, options: options()))
    }
    let summary = RunSummary(results: results, wallTime: ContinuousClock.now - started)
    print("")
    for failure in failures { print(failure.failureReport + "\n") }
    print(summary.text)
    if !summary.failed.isEmpty { throw ExitCode.failure }
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

await ChatSim.main()
