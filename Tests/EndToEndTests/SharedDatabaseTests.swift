import ChatAPI
import ChatServerTool
import ChatTestSupport
import ChatTransports
import Foundation
import Support
import Synchronization
import Testing

@testable import ChatServer

/// `--database` through the seam `chat-server` fills (`SharedDatabaseOpener`): a server handed
/// an opener takes its store, its signing key and its relay from it; one handed none (the
/// terminal client's demo, these tests) refuses `--database` at start. PostgreSQL's own opener
/// is proven against a real cluster by `scripts/test-server` (contract.py --postgres, nodes.py).
@Suite(.timeLimit(.minutes(2)))
struct SharedDatabaseTests {
  static func options(in folder: TemporaryFolder) -> ServerOptions {
    var options = ServerOptions(dataFolder: folder.path)
    options.port = 0
    options.devMode = true
    options.database = "postgres://chat@db.example:5433/chat"
    options.databaseConnections = 3
    return options
  }

  @Test func aDatabaseURLGivenToAProgramWithoutASharedDatabaseIsAStartError() throws {
    let folder = try TemporaryFolder()
    #expect {
      try ReferenceServer.start(Self.options(in: folder), log: DiscardingLogSink())
    } throws: { error in
      "\(error)"
        == "cannot use --database: this program keeps its data in SQLite only; chat-server "
        + "serves a PostgreSQL database"
    }
  }

  /// Given an opener, the server opens `--database` with it once, signs tokens with the key
  /// the nodes share, starts the relay with its service, hands it what it publishes, and stops
  /// it when it stops.
  @Test func theServerTakesItsStoreKeyAndRelayFromTheOpenerItIsHanded() async throws {
    let folder = try TemporaryFolder()
    let databases = MemoryDatabases()
    let server = try ReferenceServer.start(
      Self.options(in: folder), log: DiscardingLogSink(), databases: databases)
    #expect(databases.opened == ["postgres://chat@db.example:5433/chat with 3"])
    #expect(databases.secretsAsked == [SigningKey.fileName])
    #expect(databases.relay.calls == ["start"])
    #expect(server.objectStore == nil, "a shared database has no built-in object store")

    let http = try WireHTTPTransport(
      baseURL: try #require(URL(string: server.url)), timeout: .seconds(60),
      configuration: LoopbackServer.patientHTTP)
    let login = try await http.send(
      APIRequest(
        method: "POST", path: "/v1/auth/dev-login",
        headers: ["Content-Type": "application/json"],
        body: Array(#"{"userId":"alice","deviceId":"phone"}"#.utf8)))
    let tokens = try APICoding.decode(Tokens.self, from: login.body)
    let shared = AccessTokenSigner(key: try SigningKey(bytes: MemoryDatabases.secret))
    #expect(shared.verify(tokens.accessToken, now: SystemTimeSource().now()) != nil)
    let created = try await http.send(
      APIRequest(
        method: "POST", path: "/v1/conversations",
        headers: [
          "Content-Type": "application/json", "Authorization": "Bearer \(tokens.accessToken)",
        ],
        body: Array(#"{"title":"Hiking","memberIds":["bob"]}"#.utf8)))
    #expect(created.status == 201)

    await server.stop()
    #expect(databases.relay.calls == ["start", "forward conversation", "stop"])
  }
}

/// An opener whose "shared database" is a SQLite store in memory, with a fixed shared secret
/// and a relay that records what it is asked; each call is recorded for the test to compare.
final class MemoryDatabases: SharedDatabaseOpener {
  static let secret = [UInt8](repeating: 7, count: SigningKey.byteCount)
  let relay = CallRecordingRelay()
  private let calls = Mutex<(opened: [String], secrets: [String])>(([], []))

  var opened: [String] { calls.withLock { $0.opened } }
  var secretsAsked: [String] { calls.withLock { $0.secrets } }

  func open(
    url: String, connections: Int, executor: any SerialTaskExecutor, log: any LogSink
  ) throws -> SharedDatabase {
    calls.withLock { $0.opened.append("\(url) with \(connections)") }
    return SharedDatabase(
      store: try ServerStore(.memory, executor: executor), relay: relay,
      sharedSecret: { name, _ in
        self.calls.withLock { $0.secrets.append(name) }
        return Self.secret
      })
  }
}

/// A relay that records each call: `start`, `stop`, and `forward <event type>`.
final class CallRecordingRelay: LiveRelay {
  private let recorded = Mutex<[String]>([])

  var calls: [String] { recorded.withLock { $0 } }

  func start(delivering service: ChatService) {
    recorded.withLock { $0.append("start") }
  }

  func stop() {
    recorded.withLock { $0.append("stop") }
  }

  func forward(_ event: RelayedEvent) {
    let object = try? JSONSerialization.jsonObject(with: Data(event.frame.utf8))
    let type = (object as? [String: Any])?["type"] as? String ?? "unreadable"
    recorded.withLock { $0.append("forward \(type)") }
  }

  func forward(_ revocation: RelayedRevocation) {
    recorded.withLock { $0.append("forward revocation") }
  }
}
