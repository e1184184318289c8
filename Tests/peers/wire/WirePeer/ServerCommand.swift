import ArgumentParsing
import Foundation
import Wire

/// Runs our server with the routes the Python suites use.
struct ServerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "server",
    abstract: "Our server with the test routes.",
    discussion: """
      Prints "port N"; "shutdown" on standard input (or its end) stops it gracefully, and it
      prints "stopped" when done. With --tls-cert and --tls-key it serves HTTPS and WSS, and
      prints "tls-failure CASE ADDRESS" for every failed handshake.
      """)

  @Option(help: ArgumentHelp("The port; 0 picks a free one.", valueName: "N")) var port = 0
  @Option(help: ArgumentHelp("Event loops (threads).", valueName: "N")) var loops: Int?
  @Option(
    help: ArgumentHelp("Milliseconds allowed for a request's headers.", valueName: "N"))
  var headerTimeoutMs: Int?
  @Option(
    help: ArgumentHelp("Milliseconds a kept-alive connection may stay idle.", valueName: "N"))
  var idleTimeoutMs: Int?
  @Option(help: ArgumentHelp("The largest request body, in bytes.", valueName: "N"))
  var bodyLimit: Int?
  @Option(help: ArgumentHelp("Connections open at once.", valueName: "N"))
  var maxConnections: Int?
  @Option(
    help: ArgumentHelp("PEM certificate chain: serve TLS (with --tls-key).", valueName: "FILE"))
  var tlsCert: String?
  @Option(help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "FILE"))
  var tlsKey: String?
  @OptionGroup var webSocket: WebSocketOptions

  mutating func validate() throws {
    guard (tlsCert == nil) == (tlsKey == nil) else {
      throw ValidationError("--tls-cert and --tls-key go together")
    }
  }

  func run() async throws {
    var configuration = HTTPServer.Configuration(port: port)
    if let tlsCert, let tlsKey {
      do {
        configuration.tls = try TLSContext(
          configuration: .makeServerConfiguration(
            certificateChainFile: tlsCert, privateKeyFile: tlsKey))
      } catch {
        emit("error \(tlsCaseName(error)) \(error)")
        throw ExitCode.failure
      }
      configuration.onTLSFailure = { failure in
        emit("tls-failure \(tlsCaseName(failure.error)) \(failure.remoteAddress)")
      }
    }
    if let loops { configuration.loopCount = loops }
    if let headerTimeoutMs { configuration.headerTimeout = .milliseconds(headerTimeoutMs) }
    if let idleTimeoutMs { configuration.idleTimeout = .milliseconds(idleTimeoutMs) }
    if let bodyLimit { configuration.limits.body = bodyLimit }
    if let maxConnections { configuration.maxConnections = maxConnections }
    configuration.shutdownTimeout = .seconds(5)
    var webSocket = webSocket.configuration
    webSocket.binaryMessageHandler = { socket, bytes in try? socket.send(binary: bytes) }
    configuration.webSocket = webSocket

    let server = HTTPServer(configuration: configuration, router: Self.router())
    let port: Int
    do {
      port = try server.start()
    } catch {
      emit("error \(error)")
      throw ExitCode.failure
    }
    emit("port \(port)")
    await waitForShutdownLine()
    await server.shutdown()
    emit("stopped")
  }

  static func router() -> Router {
    var router = Router()
    router.get("/healthz") { _ in .text("ok") }
    router.post("/echo") { request in
      HTTPResponse(
        status: .ok,
        headers: ["Content-Type": request.headers["Content-Type"] ?? "application/octet-stream"],
        body: request.body)
    }
    router.put("/echo") { request in HTTPResponse(status: .ok, body: request.body) }
    router.get("/query") { request in .json(request.queryParameters) }
    router.get("/headers") { request in
      .json(Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }) { a, _ in a })
    }
    router.get("/v1/conversations/{id}/messages") { request in
      .json([
        "id": request.pathParameters["id"] ?? "", "limit": request.queryParameters["limit"] ?? "",
      ])
    }
    router.get("/status/{code}") { request in
      let code = Int(request.pathParameters["code"] ?? "") ?? 500
      return .error(HTTPStatus(code: code), code: "requested", message: "As requested.")
    }
    router.get("/slow") { request in
      let milliseconds = Int(request.queryParameters["ms"] ?? "") ?? 500
      emit("slow started")
      try? await Task.sleep(for: .milliseconds(milliseconds))
      return .text("slow done")
    }
    router.get("/big") { request in
      let size = Int(request.queryParameters["bytes"] ?? "") ?? 1_000_000
      return HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: size))
    }
    router.get("/ws") { _ in .webSocket(echo) }
    router.get("/case/{number}") { _ in .webSocket(echo) }
    router.get("/ws-auth") { request in
      guard request.headers["Authorization"] == "Bearer good" else {
        return .error(.unauthorized, code: "unauthorized", message: "Sign in again.")
      }
      return .webSocket(echo)
    }
    router.get("/ws-push") { request in
      let count = Int(request.queryParameters["count"] ?? "") ?? 10
      let size = Int(request.queryParameters["size"] ?? "") ?? 16
      return .webSocket { socket in
        let text = String(repeating: "x", count: size)
        var sent = 0
        for _ in 0..<count {
          do {
            try socket.send(text: text)
            sent += 1
          } catch {
            break
          }
        }
        emit("push sent \(sent)")
        for await _ in socket.messages {}
        emit("push closed \(socket.closeCode?.rawValue ?? 0)")
      }
    }
    return router
  }

  /// Echoes text messages (binary ones are echoed by the configuration's handler).
  @Sendable static func echo(_ socket: WebSocket) async {
    for await text in socket.messages {
      try? socket.send(text: text)
    }
  }

  /// Returns when stdin says `shutdown` or closes.
  private func waitForShutdownLine() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let thread = Thread {
        while let line = readLine() {
          if line == "shutdown" { break }
        }
        continuation.resume()
      }
      thread.start()
    }
  }
}
