import ArgumentParsing
import Foundation

/// `chat-load`: the command-line face of `SendLoad`.
public struct LoadCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "chat-load",
    abstract: "Measures durable sends per second against a chat server.",
    usage: "chat-load (--port N | --spawn BINARY) [<options>]",
    discussion: """
      CLIENTS users sign in (dev-login), pair up in one-to-one conversations, and each sends
      the next message on its own keep-alive connection as soon as the previous one is
      answered. Counts 201 answers in the measured window, and reports latency, every status
      seen, and the CPU time of the generator (and of the server, when its pid is known) so a
      run shows whether the generator was the bottleneck.

      EXIT STATUS: 0 when every answer was 201 and the server's count of new messages matches
      this run's; 1 otherwise; 64 for a wrong command line.
      """,
    usageErrorHelp: .hint)

  @Option(help: ArgumentHelp("Server address, numeric or localhost.", valueName: "ADDRESS"))
  var host = "127.0.0.1"
  @Option(
    help: ArgumentHelp(
      "Server port: a server already running with --dev --rate-limit off.", valueName: "N"),
    transform: Int.inRange(0...65_535))
  var port = 0
  @Option(
    help: ArgumentHelp(
      "Start this chat-server binary instead (free port, temporary data folder, --dev "
        + "--rate-limit off, log to a file), stop it afterwards.",
      valueName: "BINARY"))
  var spawn: String?
  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp("With --spawn, one more argument for the server.", valueName: "ARG"))
  var serverArg: [String] = []
  @Option(
    help: ArgumentHelp("With --port, the server's pid, to report its CPU time.", valueName: "PID"))
  var serverPid: Int32?
  @Option(
    help: ArgumentHelp("Concurrent clients.", valueName: "N"),
    transform: Int.inRange(1...10_000))
  var clients = 100
  @Option(
    help: ArgumentHelp("Measured seconds.", valueName: "S"), transform: Int.inRange(1...3_600))
  var duration = 10
  @Option(
    help: ArgumentHelp("Seconds of load before measuring.", valueName: "S"),
    transform: Int.inRange(0...600))
  var warmup = 2
  @Option(help: ArgumentHelp("Generator threads.", valueName: "N"), transform: Int.inRange(1...64))
  var threads = 1
  @Option(
    help: ArgumentHelp("Bytes of each message's text.", valueName: "N"),
    transform: Int.inRange(1...4_096))
  var textBytes = 64
  @Option(
    help: ArgumentHelp(
      "With --spawn, start this many nodes on one database (pass it with --server-arg "
        + "--database --server-arg URL); clients are spread over them.",
      valueName: "N"),
    transform: Int.inRange(1...16))
  var nodes = 1
  @Flag(help: "Print the report as JSON instead of text.") var json = false

  public init() {}

  public func validate() throws {
    guard spawn != nil || port != 0 else {
      throw ValidationError("say where the server is: --port N, or --spawn BINARY")
    }
    guard nodes == 1 || (spawn != nil && serverArg.contains("--database")) else {
      throw ValidationError(
        "--nodes needs --spawn and one database for them: --server-arg --database "
          + "--server-arg postgres://…")
    }
  }

  /// Blocks its thread while the load runs (on Wire loops of its own).
  public func run() async throws {
    var configuration = SendLoadConfiguration(
      host: host, port: port, clients: clients, warmup: .seconds(warmup),
      duration: .seconds(duration), threads: threads, textBytes: textBytes,
      serverPID: serverPid)
    // A server that cannot start, or a load that cannot run, is `chat-load: <error>`, exit 1.
    let spawned =
      try spawn.map { binary throws(LoadError) in
        try Self.startNodes(nodes, binary: binary, arguments: serverArg)
      } ?? []
    defer { for server in spawned { server.stop() } }
    if !spawned.isEmpty {
      configuration.port = spawned[0].port
      configuration.serverPID = spawned[0].pid
      configuration.otherPorts = spawned.dropFirst().map(\.port)
      configuration.otherServerPIDs = spawned.dropFirst().map(\.pid)
    }
    let report = try SendLoad.run(configuration)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      let data = (try? encoder.encode(report)) ?? Data()
      print(String(decoding: data, as: UTF8.self))
    } else {
      print(report.summary)
    }
    if !report.isClean { throw ExitCode.failure }
  }

  /// Starts `count` servers; if one cannot start, stops those that did.
  static func startNodes(_ count: Int, binary: String, arguments: [String]) throws(LoadError)
    -> [SpawnedServer]
  {
    var started: [SpawnedServer] = []
    do {
      while started.count < count {
        started.append(try SpawnedServer(binary: binary, extraArguments: arguments))
      }
    } catch {
      for server in started { server.stop() }
      throw error
    }
    return started
  }

}
