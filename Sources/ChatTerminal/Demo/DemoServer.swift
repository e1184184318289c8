import ChatServerTool
import Foundation
import Support
import Wire

/// The reference server as `chat-server` starts it, in-process on a free loopback port with
/// its data in `folder` and its built-in object store (media) on another; over TLS, with a
/// `LoopbackCertificate` made in that folder, when `tls` is set; its pushes go to the demo's own
/// webhook gateway (`DemoNotifications`). Its log is off: the demo's terminal is the user's.
struct DemoServer {
  let server: ReferenceServer
  /// The certificate it presents, when over TLS; its clients trust exactly it.
  let certificate: LoopbackCertificate?
  /// Where its pushes arrive.
  let notifications: DemoNotifications

  static func start(folder: String, tls: Bool = false) throws -> DemoServer {
    try FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var options = ServerOptions(dataFolder: folder)
    options.host = "127.0.0.1"
    options.port = 0
    options.devMode = true
    options.objectStorePort = 0
    options.pingInterval = 20
    let notifications = DemoNotifications()
    options.pushWebhook = try notifications.start()
    let certificate = tls ? try LoopbackCertificate.make(inFolder: folder) : nil
    options.tlsCertificate = certificate?.certificateFile
    options.tlsKey = certificate?.privateKeyFile
    return DemoServer(
      server: try ReferenceServer.start(options, log: DiscardingLogSink()),
      certificate: certificate, notifications: notifications)
  }

  var port: Int { server.port }

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
    await server.stop()
    await notifications.stop()
  }
}
