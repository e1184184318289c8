import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatTransports
import Foundation
import SQLite
import Support
import Wire

/// The reference server in this process, on a loopback port, over a durable file store (WAL,
/// `synchronous=FULL`, group commit), as in production: the store on a `ThreadExecutor` of
/// its own, the service on another, Wire's event loops (one per core) in front. Rate limiting is
/// off: every figure here sends faster than one person types.
final class BenchServer: Sendable {
  let service: ChatService
  let http: ChatHTTPServer
  let port: Int
  let folder: String
  private let serviceExecutor: ThreadExecutor
  private let storeExecutor: ThreadExecutor

  init(folder: String) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    self.folder = folder
    storeExecutor = ThreadExecutor(name: "bench.server.store")
    serviceExecutor = ThreadExecutor(name: "bench.server")
    let store = try ServerStore(.dataFolder(folder), executor: storeExecutor)
    service = ChatService(
      store: store, configuration: ServerConfiguration(devMode: true, rateLimit: nil),
      clock: SystemTimeSource(), random: SystemRandomNumberGenerator(),
      executor: serviceExecutor)
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.backlog = 4096
    configuration.maxConnections = 30_000
    http = ChatHTTPServer(service: service, configuration: configuration)
    port = try http.start()
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
  var liveURL: String { "ws://127.0.0.1:\(port)/v1/live" }

  func stop() async {
    await http.shutdown()
    await serviceExecutor.waitUntilIdle()
    await storeExecutor.waitUntilIdle()
    serviceExecutor.shutdown()
    storeExecutor.shutdown()
  }

  // MARK: - Setting up (straight to the service: not measured; see `ChatService+Setup.swift`)

  /// Signs a user in (dev login); returns the access token.
  func signIn(_ user: String, device: String = "phone") async throws -> String {
    try await service.signIn(user, device: device)
  }

  /// Creates a conversation; returns its id.
  func createConversation(token: String, title: String, members: [String]) async throws -> String {
    try await service.createConversation(token: token, title: title, members: members)
  }

  /// Posts a message; returns its sequence.
  @discardableResult
  func post(token: String, conversation: String, text: String) async throws -> Int {
    try await service.post(token: token, conversation: conversation, text: text)
  }

  // MARK: - Devices

  /// A device signed in over the network, with its database in the server's folder.
  func device(_ user: String, device: String = "phone") async throws -> ChatEngine {
    let environment = ChatEngine.Environment(
      http: try WireHTTPTransport(baseURL: baseURL), live: WireLiveTransport(url: liveURL),
      clock: BenchClock())
    return try await ChatEngine.devSignIn(
      user: UserID(user), device: DeviceID(device),
      database: .file(folder + "/device-\(user)-\(device).sqlite"), environment: environment)
  }
}

extension ChatEngine {
  /// Starts the engine and returns once its socket is connected.
  func startAndConnect() async throws {
    try await startAndReach(.connected)
  }

  /// Starts the engine and returns once its connection reaches `wanted`.
  func startAndReach(_ wanted: ConnectionState) async throws {
    let states = connectionStates()
    await start()
    let deadline = Nanos.now() + 10_000_000_000
    for await state in states {
      if state == wanted { return }
      if Nanos.now() > deadline { break }
    }
    throw BenchError("the device did not reach \(wanted)")
  }
}
