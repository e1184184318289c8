import ChatServer
import Foundation
import SQLite
import Support
import Wire

/// The reference server, started in-process on a free loopback port with its data in `folder`;
/// over TLS, with a `LoopbackCertificate` made in that folder, when `tls` is set.
struct DemoServer {
  let http: ChatHTTPServer
  let executor: ThreadExecutor
  let port: Int
  /// The certificate it presents, when over TLS; its clients trust exactly it.
  let certificate: LoopbackCertificate?

  static func start(folder: String, tls: Bool = false) throws -> DemoServer {
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
    let certificate = tls ? try LoopbackCertificate.make(inFolder: folder) : nil
    configuration.tls = try certificate?.serverContext()
    let http = ChatHTTPServer(service: service, configuration: configuration)
    let port = try http.start()
    return DemoServer(http: http, executor: executor, port: port, certificate: certificate)
  }

  var url: URL {
    URL(string: certificate == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)")!
  }

  var liveURL: String {
    certificate == nil ? "ws://127.0.0.1:\(port)/v1/live" : "wss://localhost:\(port)/v1/live"
  }

  /// What its clients verify it with: nil over plain HTTP.
  func clientTLS() throws(TLSError) -> TLSContext? {
    try certificate?.clientContext()
  }

  func stop() async {
    await http.shutdown()
    await executor.waitUntilIdle()
    executor.shutdown()
  }
}
