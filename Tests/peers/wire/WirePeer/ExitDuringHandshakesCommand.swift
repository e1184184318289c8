import ArgumentParsing
import Foundation
import Wire

/// Exits the process while our client is in the middle of TLS handshakes: the case where a
/// `chat` command finished its work while a connection was still being set up. OpenSSL's own
/// clean-up at exit, run beside a handshake on the client's thread, crashed the process
/// (SIGSEGV) until `TLSLibrary.keepAtExit()`; the suite counts the processes that die of a
/// signal.
struct ExitDuringHandshakesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "exit-during-handshakes",
    abstract: "Handshakes in a loop on our HTTP client, and exit(0) while they run.",
    discussion: """
      Each of --clients tasks makes a new client per request (a new connection, so a new
      handshake) to --url, failures ignored; after --after-ms the process calls exit(0) at
      once. Trust roots: SSL_CERT_FILE.
      """)

  @Option(help: ArgumentHelp("An https:// URL to ask, again and again.", valueName: "URL"))
  var url: String
  @Option(help: ArgumentHelp("Requests in flight at once.", valueName: "N"))
  var clients = 8
  @Option(help: ArgumentHelp("Milliseconds of handshakes before exiting.", valueName: "N"))
  var afterMs = 30

  func run() async {
    for _ in 0..<clients {
      Task.detached { [url] in
        while true {
          let client = HTTPClient()
          _ = try? await client.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        }
      }
    }
    try? await Task.sleep(for: .milliseconds(afterMs))  // the fixture's point: exit mid-work
    Foundation.exit(0)
  }
}
