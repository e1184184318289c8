import ArgumentParsing
import Foundation
import Wire

/// The peer fixture the Python suites in Tests/peers/wire drive: our HTTP/WebSocket server
/// with test routes, our WebSocket client in one of a few scripted modes, or our HTTP client.
/// Output is one line per event on stdout, so a script can follow it.
@main
struct WirePeer: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wire-peer",
    abstract: "Wire's server or client, driven by the Python suites in Tests/peers/wire.",
    discussion: "Prints one line per event on standard output, so a script can follow it.",
    subcommands: [
      ServerCommand.self, ClientCommand.self, ClientCasesCommand.self, HTTPClientCommand.self,
      ExitDuringHandshakesCommand.self,
    ])
}

/// The WebSocket settings every mode takes; each one left out keeps Wire's default.
struct WebSocketOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The largest message accepted, in bytes.", valueName: "N"))
  var maxMessage: Int?
  @Option(
    help: ArgumentHelp("Milliseconds of silence before a ping; 0 never pings.", valueName: "N"))
  var pingIntervalMs: Int?
  @Option(
    help: ArgumentHelp(
      "Milliseconds to wait for the answer to a ping before dropping the socket.",
      valueName: "N"))
  var pingTimeoutMs: Int?
  @Option(
    help: ArgumentHelp("Bytes waiting to be sent before the socket is dropped.", valueName: "N"))
  var maxBuffered: Int?

  /// Wire's configuration with these settings, and a 2-second closing handshake.
  var configuration: WebSocketConfiguration {
    var configuration = WebSocketConfiguration()
    if let maxMessage { configuration.maxMessageSize = maxMessage }
    if let pingIntervalMs {
      configuration.pingInterval = pingIntervalMs == 0 ? nil : .milliseconds(pingIntervalMs)
    }
    if let pingTimeoutMs { configuration.pingTimeout = .milliseconds(pingTimeoutMs) }
    if let maxBuffered { configuration.maxBufferedBytes = maxBuffered }
    configuration.closeTimeout = .seconds(2)
    return configuration
  }
}

/// Writes one line to stdout at once (unbuffered, so a driving script sees it immediately).
func emit(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `tls.` and the error's code (`tls.hostname_mismatch`), for the scripts to match.
func tlsCaseName(_ error: TLSError) -> String {
  "tls." + error.code
}
