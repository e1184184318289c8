import ArgumentParsing
import Foundation
import Wire

/// `chat-bench echo-server`: our WebSocket echo server for B8, in a process of its own so its
/// memory is measured alone. Prints `port N`, then echoes every text message until its
/// standard input closes.
struct EchoServer: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "echo-server",
    abstract: "B8's WebSocket echo server: prints 'port N', echoes until stdin closes.")

  func run() async throws {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.maxConnections = 30_000
    configuration.backlog = 4096
    raiseOpenFilesLimit(to: 65_536)
    var router = Router()
    router.get("/echo") { _ in
      .webSocket { socket in
        for await text in socket.messages { try? socket.send(text: text) }
      }
    }
    let server = HTTPServer(configuration: configuration, router: router)
    do {
      let port = try server.start()
      FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
    } catch {
      print("error \(error)")
      throw ExitCode.failure
    }
    // Runs until the parent closes our standard input.
    await Task.detached { _ = FileHandle.standardInput.readDataToEndOfFile() }.value
    await server.shutdown()
  }
}
