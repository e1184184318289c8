import Foundation
import Glibc

/// `chat-bench`: the performance figures (B1–B10 and B6S, docs/PERFORMANCE.md), each next to its
/// physical limit or a peer.
///
///     swift run -c release chat-bench [--quick] [--json FILE] [--svg DIR] [--only B1,B4]
///
/// Prints the table (figure, workload, median, p99, baseline, ratio, target) on standard output
/// and progress on standard error. `--quick` scales every workload down (a smoke run for CI,
/// under a minute) and skips peers that need extra installs; its figures are not the ones to
/// quote. Two child modes run in separate processes: `open-child` (B2, B10) and `echo-server`
/// (B8).
@main
struct ChatBench {
  struct Options {
    var quick = false
    var jsonPath: String?
    var svgFolder: String?
    var only: Set<String>?
    var keep = false

    static let usage = """
      usage: chat-bench [--quick] [--json FILE] [--svg DIR] [--only B1,B2,…] [--keep]
        --quick       scaled-down workloads, no peers needing installs (CI smoke run, < 1 min)
        --json FILE   write every figure, its samples' percentiles and the machine as JSON
        --svg DIR     write the latency distributions of B4 and B5 as DIR/latency.svg
        --only LIST   measure only these figures (B2, B3 and B10 need B1's database: B1 runs)
        --keep        keep the temporary folder with the databases
      """

    init(_ arguments: [String]) throws {
      var rest = arguments[...]
      while let argument = rest.popFirst() {
        switch argument {
        case "--quick": quick = true
        case "--keep": keep = true
        case "--json":
          guard let value = rest.popFirst() else { throw BenchError("--json needs a file") }
          jsonPath = value
        case "--svg":
          guard let value = rest.popFirst() else { throw BenchError("--svg needs a folder") }
          svgFolder = value
        case "--only":
          guard let value = rest.popFirst() else { throw BenchError("--only needs a list") }
          only = Set(value.uppercased().split(separator: ",").map(String.init))
        case "-h", "--help":
          print(Self.usage)
          exit(0)
        default: throw BenchError("unknown argument \(argument)\n\(Self.usage)")
        }
      }
    }

    func wants(_ figure: String) -> Bool { only?.contains(figure) ?? true }
  }

  static func main() async {
    let startedAt = Nanos.now()
    var arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "open-child":
      arguments.removeFirst()
      exit(await OpenChild.main(arguments, startedAt: startedAt))
    case "echo-server":
      arguments.removeFirst()
      exit(await EchoServer.main(arguments))
    default: break
    }
    signal(SIGPIPE, SIG_IGN)
    do {
      let options = try Options(arguments)
      let code = try await Run(options: options).measure()
      exit(code)
    } catch {
      FileHandle.standardError.write(Data("chat-bench: \(error)\n".utf8))
      exit(1)
    }
  }
}
