import Foundation
import Wire

/// The peer fixture the Python suites in Tests/peers/wire drive: our HTTP/WebSocket server
/// with test routes, or our WebSocket client in one of a few scripted modes. Output is one
/// line per event on stdout, so a script can follow it.
@main
struct WirePeer {
  static func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard !arguments.isEmpty else {
      FileHandle.standardError.write(Data(usage.utf8))
      exit(2)
    }
    let command = arguments.removeFirst()
    let options = Options(arguments)
    switch command {
    case "server": await ServerCommand(options: options).run()
    case "client": await ClientCommand(options: options).run()
    case "client-cases": await ClientCasesCommand(options: options).run()
    default:
      FileHandle.standardError.write(Data(usage.utf8))
      exit(2)
    }
  }

  static let usage = """
    usage: wire-peer server [--port N] [--header-timeout-ms N] [--idle-timeout-ms N]
                            [--body-limit N] [--max-message N] [--ping-interval-ms N]
                            [--ping-timeout-ms N] [--loops N]
             Prints "port N"; "shutdown" on stdin stops it gracefully ("stopped" when done).
           wire-peer client --url ws://… [--header 'Name: value']… [--send TEXT]…
                            [--ping-interval-ms N] [--ping-timeout-ms N] [--echo]
             Prints "open", "rejected STATUS", "error …", "message TEXT", "closed CODE MS".
           wire-peer client-cases --url ws://host:port --cases N
             Echo client for the conformance cases: connects to /case/1…/case/N in turn.

    """
}

/// `--name value` options; a name may repeat.
struct Options {
  private var values: [String: [String]] = [:]
  private var flags: Set<String> = []

  init(_ arguments: [String]) {
    var index = 0
    while index < arguments.count {
      let name = arguments[index]
      if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
        values[name, default: []].append(arguments[index + 1])
        index += 2
      } else {
        flags.insert(name)
        index += 1
      }
    }
  }

  func string(_ name: String) -> String? { values[name]?.last }
  func strings(_ name: String) -> [String] { values[name] ?? [] }
  func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }
  func flag(_ name: String) -> Bool { flags.contains(name) }

  func milliseconds(_ name: String) -> Duration? {
    int(name).map { .milliseconds($0) }
  }

  var webSocket: WebSocketConfiguration {
    var configuration = WebSocketConfiguration()
    if let size = int("--max-message") { configuration.maxMessageSize = size }
    if let interval = int("--ping-interval-ms") {
      configuration.pingInterval = interval == 0 ? nil : .milliseconds(interval)
    }
    if let timeout = milliseconds("--ping-timeout-ms") { configuration.pingTimeout = timeout }
    if let buffered = int("--max-buffered") { configuration.maxBufferedBytes = buffered }
    configuration.closeTimeout = .seconds(2)
    return configuration
  }
}

/// Writes one line to stdout at once (unbuffered, so a driving script sees it immediately).
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
