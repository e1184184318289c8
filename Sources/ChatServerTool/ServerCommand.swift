import ArgumentParsing
import ChatServer
import Dispatch
import Foundation
import ObjectStorage
import Support

/// `chat-server`: starts the `ReferenceServer` with its options, prints where it listens and
/// where its data is, and stops gracefully on the first SIGINT or SIGTERM (a second one ends
/// the process at once).
public struct ServerCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "chat-server",
    abstract: "The reference chat server.",
    discussion: """
      Every route and live event of the v1 API over HTTP/1.1 and WebSocket (over TLS with
      --tls-cert and --tls-key), stored in SQLite (WAL, synchronous=FULL). Stops gracefully on
      SIGINT or SIGTERM. Each option is also read
      from the environment variable shown; the option wins.

      EXIT STATUS: 0 after a graceful stop, 64 for a wrong command line, 1 when it could not
      start.
      """,
    usageErrorHelp: .hint)

  @OptionGroup public var options: ServerOptions

  /// What opens `--database`; nil: SQLite only (see `main(opening:)`).
  var databases: (any SharedDatabaseOpener)?

  public init() {}

  /// Parses the process's command line and runs the server with `databases` opening
  /// `--database` (the executable's own: `chat-server` hands PostgreSQL's, so no other program
  /// links it), then exits as `main()` does.
  @MainActor
  public static func main(opening databases: any SharedDatabaseOpener) async {
    var command: ServerCommand
    do {
      command = try parse()
    } catch {
      exit(withError: error)
    }
    command.databases = databases
    do {
      try await command.run()
    } catch {
      exit(withError: error)
    }
    Foundation.exit(ExitCode.success.rawValue)
  }

  public func run() async throws {
    // A closed stdout or stderr pipe must not end the server: writes just fail.
    signal(SIGPIPE, SIG_IGN)
    // Watch the signals before starting, so one that arrives during start-up is not lost.
    let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
    let server: ReferenceServer
    do {
      server = try ReferenceServer.start(
        options, log: try Self.logSink(options.log), databases: databases)
    } catch {
      Self.printError("chat-server: \(error)")
      throw ExitCode.failure
    }
    Self.say("chat-server listening on \(server.url)")
    if let certificate = options.tlsCertificate {
      Self.say("tls: \(certificate) (TLS 1.2 and 1.3; a plain http:// request gets 400)")
    }
    let folder =
      options.dataFolder.hasPrefix("/")
      ? options.dataFolder
      : FileManager.default.currentDirectoryPath + "/" + options.dataFolder
    if let location = options.databaseLocation {
      Self.say("database: PostgreSQL at \(location), shared by every node started with it")
      Self.say("data folder: \(folder)")
    } else {
      Self.say("data folder: \(folder) (chat.sqlite, signing-key)")
    }
    if let s3 = server.options.s3 {
      Self.say(
        "media store: \(s3.scheme)://\(s3.host), bucket \(s3.bucket), region \(s3.region), "
          + "access key \(s3.credentials.accessKeyID)")
    }
    if let store = server.objectStore {
      Self.say(
        "object store listening on \(store.url) "
          + (store.publicURL == store.url ? "" : "(devices reach it at \(store.publicURL)) ")
          + "(bucket \(ObjectStoreEndpoint.bucket), region "
          + "\(ObjectStoreEndpoint.region), access key \(ObjectStoreEndpoint.accessKeyID); "
          + "bytes in \(folder)/objects)")
    }
    if options.devMode {
      Self.say("dev mode: POST /v1/auth/dev-login signs anyone in")
    }
    if options.rateLimit == nil {
      Self.say("rate limit: off")
    }

    let received = await signals.next()
    Self.say("chat-server: \(received == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
    signals.handleLaterSignals { _ in
      Self.printError("chat-server: second signal, exiting now")
      Foundation.exit(130)
    }
    await server.stop()
    Self.say("chat-server: stopped")
  }

  static func logSink(_ destination: ServerOptions.LogDestination) throws(ServerStartError)
    -> any LogSink
  {
    switch destination {
    case .standardError: return FileLogSink()
    case .off: return DiscardingLogSink()
    case .file(let path):
      do {
        return try FileLogSink(path: path)
      } catch {
        throw .log(error.description)
      }
    }
  }

  /// One line on standard output, written at once (a pipe reader sees it without buffering).
  private static func say(_ text: String) {
    writeLine(text, to: STDOUT_FILENO)
  }

  private static func printError(_ text: String) {
    writeLine(text, to: STDERR_FILENO)
  }

  /// One `write(2)`; a reader that went away costs the line, never the server (SIGPIPE is
  /// ignored, see `run`).
  private static func writeLine(_ text: String, to descriptor: Int32) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }
}
