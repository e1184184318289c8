import ChatServer
import Dispatch
import Foundation
import Support

/// `chat-server`: parses the options, starts the `ReferenceServer`, prints where it listens and
/// where its data is, and stops gracefully on the first SIGINT or SIGTERM (a second one ends
/// the process at once).
public enum ServerCommand {
  /// Exit statuses: 0 after a graceful stop, 64 for a wrong command line, 1 when it could not
  /// start.
  public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
    let options: ServerOptions
    do {
      options = try ServerOptions.parse(arguments, environment: environment)
    } catch {
      printError("chat-server: \(error)\nRun chat-server --help for the options.")
      return 64
    }
    if options.showHelp {
      say(ServerOptions.help)
      return 0
    }
    // A closed stdout or stderr pipe must not end the server: writes just fail.
    signal(SIGPIPE, SIG_IGN)
    // Watch the signals before starting, so one that arrives during start-up is not lost.
    let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
    let server: ReferenceServer
    do {
      server = try ReferenceServer.start(options, log: try logSink(options.log))
    } catch {
      printError("chat-server: \(error)")
      return 1
    }
    say("chat-server listening on \(server.url)")
    let folder =
      options.dataFolder.hasPrefix("/")
      ? options.dataFolder
      : FileManager.default.currentDirectoryPath + "/" + options.dataFolder
    say("data folder: \(folder) (chat.sqlite, signing-key)")
    if options.devMode {
      say("dev mode: POST /v1/auth/dev-login signs anyone in")
    }
    if options.rateLimit == nil {
      say("rate limit: off")
    }

    let received = await signals.next()
    say("chat-server: \(received == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
    signals.handleLaterSignals { _ in
      printError("chat-server: second signal, exiting now")
      exit(130)
    }
    await server.stop()
    say("chat-server: stopped")
    return 0
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
  /// ignored, see `main`).
  private static func writeLine(_ text: String, to descriptor: Int32) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }
}
