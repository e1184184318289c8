import ArgumentParsing
import Foundation
import Wire

/// Runs our HTTP client: the requests in order on one client (so kept-alive connections are
/// reused), one JSON line per outcome.
struct HTTPClientCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "http-client",
    abstract: "Our HTTP client: the requests in order, on one client.",
    discussion: """
      Prints one JSON line per request: {"status", "body", "headers"} for a response, or
      {"error", "reason", "progress"} for a failure.
      """)

  @Option(
    help: ArgumentHelp(
      "A request, 'METHOD URL' or 'METHOD URL BODY' (repeat for more).", valueName: "REQUEST"))
  var request: [String] = []
  @Option(help: ArgumentHelp("Milliseconds allowed for each request.", valueName: "N"))
  var timeoutMs = 5000
  @Option(help: ArgumentHelp("Connections per host and port.", valueName: "N"))
  var maxConnections = 4

  func run() async {
    var configuration = HTTPClient.Configuration()
    configuration.maxConnectionsPerHost = maxConnections
    let client = HTTPClient(configuration: configuration)
    for line in request {
      let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
      guard parts.count >= 2 else {
        emitJSON(["error": "usage", "reason": "usage", "progress": "notSent"])
        continue
      }
      let wire = HTTPClientRequest(
        url: parts[1], method: HTTPMethod(rawValue: parts[0]),
        body: parts.count > 2 ? Array(parts[2].utf8) : [])
      do {
        let response = try await client.execute(wire, timeout: .milliseconds(timeoutMs))
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.lowercased()] = field.value }
        emitJSON(["status": response.status.code, "body": response.bodyText, "headers": headers])
      } catch {
        emitJSON([
          "error": error.description, "reason": "\(error.reason)".prefix { $0 != "(" },
          "progress": "\(error.progress)",
        ])
      }
    }
    await client.shutdown()
  }
}

/// One JSON object on a line of its own.
func emitJSON(_ object: [String: Any]) {
  let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
  emit(String(decoding: data, as: UTF8.self))
}
