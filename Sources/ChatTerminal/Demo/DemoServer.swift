import ChatServer
import Foundation
import SQLite
import Support
import Wire

/// The reference server, started in-process on a free loopback port with its data in `folder`.
struct DemoServer {
  let http: ChatHTTPServer
  let executor: ThreadExecutor
  let port: Int

  static func start(folder: String) throws -> DemoServer {
    try FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let executor = ThreadExecutor(name: "chat.demo-server")
    let store = try ServerStore(.dataFolder(folder), executor: executor)
    var random = SystemRandomNumberGenerator()
    let key = try SigningKey.loadOrCreate(inFolder: folder, using: &random)
    let service = ChatService(
      store: store, configuration: ServerConfiguration(devMode: true, signingKey: key),
      clock: SystemTimeSource(), random: SystemRandomNumberGenerator(), executor: executor)
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.webSocket.pingInterval = .seconds(20)
    let http = ChatHTTPServer(service: service, configuration: configuration)
    let port = try http.start()
    return DemoServer(http: http, executor: executor, port: port)
  }

  var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

  func stop() async {
    await http.shutdown()
    await executor.waitUntilIdle()
    executor.shutdown()
  }
}
