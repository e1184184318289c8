import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatTransports
import Foundation
import SQLite
import Support
import Wire

/// One `chat` command: a `ParsableCommand` whose work gets what it runs with (the global
/// options, the environment, where to write) as a `CommandContext`, so tests can run it with
/// their own.
public protocol ChatCommand: ParsableCommand, Sendable {
  /// The options every command takes: `@OptionGroup(title: "GLOBAL OPTIONS")`.
  var options: GlobalOptions { get }

  func run(_ context: CommandContext) async -> ExitCode
}

extension ChatCommand {
  /// Runs with the process's environment and standard output and error.
  public mutating func run() async throws {
    let context = CommandContext(
      options: options, environment: ProcessInfo.processInfo.environment,
      output: Output(json: options.json))
    let code = await run(context)
    if !code.isSuccess { throw code }
  }
}

/// What a running command has: the global options, the environment, where to write.
public struct CommandContext: Sendable {
  public let options: GlobalOptions
  public let environment: [String: String]
  public let output: Output

  public init(options: GlobalOptions, environment: [String: String], output: Output) {
    self.options = options
    self.environment = environment
    self.output = output
  }

  /// The engine's seams for this server: Wire's HTTP client for requests and Wire's WebSocket
  /// for the socket (both over TLS for an `https://` server, trusting `--ca-file` when
  /// given), standard error for logs when `--verbose`. A server URL the transport refuses is a
  /// usage error.
  public func engineEnvironment(
    conditions: NetworkConditions? = nil, liveUpdates: LiveUpdates = .automatic
  ) throws(CommandFailure) -> ChatEngine.Environment {
    let wire: WireHTTPTransport
    do {
      var configuration = HTTPClient.Configuration()
      configuration.tls = options.tls
      wire = try WireHTTPTransport(baseURL: options.server, configuration: configuration)
    } catch {
      throw .usage(ValidationError("--server \(error)"))
    }
    var http: any HTTPTransport = wire
    var objects: any ObjectTransfer = wire
    var live: any LiveTransport = WireLiveTransport(url: options.liveURL, tls: options.tls)
    if let conditions {
      http = conditions.http(http)
      objects = conditions.objects(objects)
      live = conditions.live(live)
    }
    let log: any LogSink = options.verbose ? FileLogSink(minimum: .info) : DiscardingLogSink()
    var environment = ChatEngine.Environment(
      http: http, live: live, network: conditions ?? NoNetworkMonitor(), log: log)
    environment.objects = objects
    environment.mediaProcessing = LinuxMediaProcessing()
    environment.liveUpdates = liveUpdates
    return environment
  }

  /// The database path, with its folder created (mode 0700) when missing.
  public func databasePath() throws(ValidationError) -> String {
    let path = try options.databasePath(environment: environment)
    let folder = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
  }

  /// Opens the engine of a device that ran `chat login` before.
  public func openEngine(
    conditions: NetworkConditions? = nil, liveUpdates: LiveUpdates = .automatic
  ) async throws(CommandFailure) -> ChatEngine {
    let path: String
    do {
      path = try databasePath()
    } catch {
      throw .usage(error)
    }
    guard FileManager.default.fileExists(atPath: path) else {
      throw .failed(.signedOut, "not signed in on this device: run chat login --user ID first")
    }
    let environment = try engineEnvironment(conditions: conditions, liveUpdates: liveUpdates)
    do {
      return try await ChatEngine.open(.file(path), environment: environment)
    } catch .signedOut {
      throw .failed(.signedOut, "not signed in on this device: run chat login --user ID first")
    } catch {
      throw .failed(error, error.description)
    }
  }

  /// Runs `body` with an open engine and closes it afterwards, mapping failures to an exit code.
  public func withEngine(
    conditions: NetworkConditions? = nil, liveUpdates: LiveUpdates = .automatic,
    _ body: (ChatEngine) async throws(CommandFailure) -> ExitCode
  ) async -> ExitCode {
    let engine: ChatEngine
    do {
      engine = try await openEngine(conditions: conditions, liveUpdates: liveUpdates)
    } catch {
      return report(error)
    }
    let code: ExitCode
    do {
      code = try await body(engine)
    } catch {
      code = report(error)
    }
    await engine.close()
    return code
  }

  /// Prints a failure and returns its exit code.
  public func report(_ failure: CommandFailure) -> ExitCode {
    switch failure {
    case .usage(let error):
      output.error(error.message)
      return .validationFailure
    case .failed(let error, let message):
      output.error(message)
      return ExitCode(error)
    }
  }
}

/// Why a command stopped.
public enum CommandFailure: Error {
  /// A wrong command line found while running: one line, exit status 64.
  case usage(ValidationError)
  case failed(ChatError, String)

  init(_ error: ChatError) {
    self = .failed(error, error.description)
  }

  /// A failure from a `do` block whose error type Swift did not narrow to `ChatError`.
  init(_ error: any Error) {
    if let error = error as? ChatError {
      self.init(error)
    } else {
      self = .failed(.storage("\(error)"), "\(error)")
    }
  }
}

/// Runs an engine call, its error becoming the command's failure (printed, with its exit code).
func attempt<T>(_ body: () async throws -> T) async throws(CommandFailure) -> T {
  do {
    return try await body()
  } catch {
    throw CommandFailure(error)
  }
}

/// Catches up from the server before a command shows what this device holds; unreachable (or
/// busy), it says so and the command goes on with what is here.
func catchUpIfReachable(_ engine: ChatEngine, _ context: CommandContext)
  async throws(CommandFailure)
{
  do throws(ChatError) {
    _ = try await engine.sync()
  } catch .offline, .unavailable {
    context.output.note("The server cannot be reached: showing what this device holds.")
  } catch {
    throw CommandFailure(error)
  }
}

/// The transform of a `<conversationId>` argument.
@Sendable func conversationID(_ text: String) throws -> ConversationID {
  guard let id = ConversationID(rawValue: text) else { throw ValidationError("a conversation id") }
  return id
}

/// The transform of a `<clientMessageId>` argument.
@Sendable func messageID(_ text: String) throws -> MessageID {
  guard let id = MessageID(rawValue: text) else {
    throw ValidationError("a client message id (a UUID)")
  }
  return id
}
