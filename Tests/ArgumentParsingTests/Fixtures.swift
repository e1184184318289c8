import ArgumentParsing

/// The commands the tests parse: one of each kind of declaration.
enum Profile: String, ExpressibleByArgument, CaseIterable {
  case quick
  case full
}

struct Serve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve", abstract: "Serves requests.", discussion: "Stops on SIGTERM.")

  @Option(
    help: ArgumentHelp("TCP port.", valueName: "N"), environment: "SERVE_PORT",
    transform: Int.inRange(0...65_535))
  var port = 8080
  @Option(help: ArgumentHelp("Address to listen on.", valueName: "ADDRESS"))
  var host = "127.0.0.1"
  @Flag(name: .customLong("dev"), help: "Let anyone sign in.", environment: "SERVE_DEV")
  var devMode = false
  @Option(name: .customLong("tag"), help: "A label for the logs.")
  var tags: [String] = []
  @Option(parsing: .unconditional, help: "One argument passed on as it is.")
  var passOn: String?
  @Option(help: "How long to run.") var profile = Profile.quick
  @Option(help: "A share of the load.") var ratio = 0.5
  @Option(help: "A seed to replay.") var seed: UInt64?
  @Option(help: "Seconds a token lives.") var accessTokenTTL = 900
  @Option(
    help: "Where the data goes.", environment: "SERVE_DATA",
    defaultFromEnvironment: { ($0["HOME"] ?? ".") + "/data" })
  var data: String

  mutating func validate() throws {
    guard !host.isEmpty else { throw ValidationError("--host needs an address") }
  }

  func run() async throws {}
}

struct Copy: ParsableCommand {
  @Argument(help: ArgumentHelp("What to copy.", valueName: "from")) var source: String
  @Argument(help: "Where the copy goes.") var destination = "."
  @Option(help: ArgumentHelp("The copy's title.", valueName: "TITLE")) var title: String
  @Flag(help: "Replace what is there.") var force = false

  func run() async throws {}
}

struct Shared: ParsableArguments {
  @Option(help: "Who you are.", environment: "TOOL_USER") var user: String?
  @Flag(help: "Print JSON.") var json = false
}

struct Tool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tool", abstract: "Does two things.", subcommands: [Send.self, Count.self])

  @OptionGroup(title: "GLOBAL OPTIONS") var shared: Shared
  @Flag(help: "Only for the tool itself.") var quiet = false

  func run() async throws {}
}

struct Send: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "send", abstract: "Sends a text.")

  @OptionGroup(title: "GLOBAL OPTIONS") var shared: Shared
  @Argument(help: "The conversation.") var conversation: String
  @Argument(help: "The message.") var text: String

  func run() async throws {}
}

struct Count: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "count", abstract: "Counts words.", usageErrorHelp: .hint)

  @OptionGroup(title: "GLOBAL OPTIONS") var shared: Shared
  @Argument(help: "The words.") var words: [String] = []

  func validate() throws {
    guard !words.isEmpty else { throw ValidationError("missing <words>") }
  }

  func run() async throws {}
}

/// A command with subcommands and no `run()` of its own.
struct Dispatcher: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dispatcher", subcommands: [Send.self], usageErrorHelp: .hint)
}

/// The message and status of the usage error parsing `arguments` throws; nil when it parses.
func usageError<T: ParsableArguments>(
  _ type: T.Type, _ arguments: [String], environment: [String: String] = [:]
) -> (message: String, status: ExitCode)? {
  do {
    _ = try T.parse(arguments, environment: environment)
    return nil
  } catch {
    return (T.message(for: error), T.exitCode(for: error))
  }
}
