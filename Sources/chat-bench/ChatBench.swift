import ArgumentParsing
import Foundation
import Glibc

/// `chat-bench`: the performance figures (B1–B15 and B6S, docs/PERFORMANCE.md), each next to its
/// physical limit or a peer. A full run leaves out B15 (its two-year database takes minutes to
/// build) unless `--only` names it.
///
///     swift run -c release chat-bench [--quick] [--json FILE] [--svg DIR] [--only B1,B4]
///
/// Prints the table (figure, workload, median, p99, baseline, ratio, target) on standard output
/// and progress on standard error. `--quick` scales every workload down (a smoke run for CI,
/// under a minute) and skips peers that need extra installs; its figures are not the ones to
/// quote. Two child modes run in separate processes: `open-child` (B2, B10) and `echo-server`
/// (B8).
@main
struct ChatBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat-bench",
    abstract: "The benchmark figures, each next to its physical limit or a peer.",
    usage: "chat-bench [<options>]",
    discussion: """
      Prints the table (figure, workload, median, p99, baseline, ratio, target) on standard
      output and progress on standard error. The subcommands are the child processes the
      figures spawn; they are not run by hand.
      """,
    subcommands: [OpenChild.self, EchoServer.self])

  struct Options: ParsableArguments {
    @Flag(help: "Scaled-down workloads, no peers needing installs (CI smoke run, < 1 min).")
    var quick = false
    @Option(
      name: .customLong("json"),
      help: ArgumentHelp(
        "Write every figure, its samples' percentiles and the machine as JSON.",
        valueName: "FILE"))
    var jsonPath: String?
    @Option(
      name: .customLong("svg"),
      help: ArgumentHelp(
        "Write the latency distributions of B4 and B5 as DIR/latency.svg.", valueName: "DIR"))
    var svgFolder: String?
    @Option(
      help: ArgumentHelp(
        "Measure only these figures, e.g. B1,B4 (B2, B3 and B10 need B1's database: B1 runs; "
          + "a full run measures B15, the two-year database, only when named).",
        valueName: "LIST"),
      transform: { Set($0.uppercased().split(separator: ",").map(String.init)) })
    var only: Set<String>?
    @Option(
      help: ArgumentHelp(
        "B14's PostgreSQL cluster: a folder scripts/postgres-local start made (without it B14 "
          + "is skipped).",
        valueName: "DIR"))
    var postgres: String?
    @Option(
      help: ArgumentHelp(
        "B14 again with the nodes relaying through this NATS cluster: a folder scripts/nats-local "
          + "start made.",
        valueName: "DIR"))
    var nats: String?
    @Flag(
      help: """
        API.md Part 3 in the workload: reactions on 1 message in 10 and replies on another 1 \
        in 10 of B1's database (which B2, B3 and B10 open), and among B4's sends.
        """)
    var partThree = false
    @Flag(help: "Keep the temporary folder with the databases.") var keep = false
    @Option(
      help: ArgumentHelp(
        "Each figure's time limit (default: 1,200 s, B15 5,400 s; quick: 300 s, 600 s). A "
          + "figure past it is reported failed, the others keep their results.",
        valueName: "SECONDS"))
    var timeLimit: Int?

    func wants(_ figure: String) -> Bool { only?.contains(figure) ?? true }
  }

  @OptionGroup var options: Options

  /// When the process reached `main`, for B2's split of a fresh open (spawn → main → view
  /// state): a static is initialised on first use, and `main` uses it first.
  static let startedAt = Nanos.now()

  @MainActor
  static func main() async {
    _ = startedAt
    await main(nil, environment: nil)
  }

  func run() async throws {
    signal(SIGPIPE, SIG_IGN)
    let code = try await Run(options: options).measure()
    if code != 0 { throw ExitCode(code) }
  }
}
