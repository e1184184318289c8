import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatServerTool
import ChatTestSupport
import ChatTransports
import Foundation
import Support
import Synchronization
import Wire

/// A reference server started in-process on a free loopback port, as `chat-server` starts it,
/// with a temporary data folder and a clock the test can move forward.
final class LoopbackServer: Sendable {
  let server: ReferenceServer
  let folder: TemporaryFolder
  let clock: ShiftableClock
  let log: CollectingLogSink

  /// - Parameter tls: the certificate chain and key files to serve HTTPS and WSS with.
  /// - Parameter media: serve media with the built-in object store on a port of its own.
  init(
    rateLimit: RateLimit? = nil, accessTokenTTL: Int = 900,
    tls: (certificate: String, key: String)? = nil, media: Bool = false
  ) throws {
    folder = try TemporaryFolder()
    clock = ShiftableClock()
    log = CollectingLogSink()
    var options = ServerOptions(dataFolder: folder.path + "/server")
    options.port = 0
    options.devMode = true
    options.rateLimit = rateLimit
    options.accessTokenTTL = accessTokenTTL
    options.tlsCertificate = tls?.certificate
    options.tlsKey = tls?.key
    if media { options.objectStorePort = 0 }
    server = try ReferenceServer.start(options, log: log, clock: clock)
  }

  var baseURL: URL { URL(string: server.url)! }

  /// The HTTP client's settings for tests: a connect may take as long as the request's own
  /// hang guard (the default 10 s is a timing a loaded CI machine does not keep).
  static var patientHTTP: HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    configuration.connectTimeout = .seconds(60)
    return configuration
  }
  var liveURL: String { "ws://127.0.0.1:\(server.port)/v1/live" }

  /// A signed-in engine over the real transports, its database in the temporary folder.
  /// `objects` wraps the object-store transport (to cut or count its requests).
  func engine(
    _ user: String, device: String = "phone",
    objects wrap: (any ObjectTransfer) -> any ObjectTransfer = { $0 },
    network: any NetworkMonitor = NoNetworkMonitor(), ids: (any MessageIDGenerator)? = nil
  ) async throws -> ChatEngine {
    var environment = try environment(objects: wrap)
    environment.network = network
    environment.ids = ids
    return try await ChatEngine.devSignIn(
      user: UserID(user), device: DeviceID(device),
      database: .file(databasePath(user, device)), environment: environment)
  }

  /// The engine of a device that signed in before, opened again (an app relaunched).
  func reopen(
    _ user: String, device: String = "phone",
    objects wrap: (any ObjectTransfer) -> any ObjectTransfer = { $0 }
  ) async throws -> ChatEngine {
    try await ChatEngine.open(
      .file(databasePath(user, device)), environment: environment(objects: wrap))
  }

  func databasePath(_ user: String, _ device: String = "phone") -> String {
    folder.path + "/\(user)-\(device).sqlite"
  }

  private func environment(objects wrap: (any ObjectTransfer) -> any ObjectTransfer) throws
    -> ChatEngine.Environment
  {
    // 30 s: hang guards, not timings. At the start of a CI run every suite starts at once on
    // two cores, and one request of the first test has waited more than 10 s for the server
    // (and a connect, whose own limit is 10 s by default, once failed after 17 s of the run).
    let wire = try WireHTTPTransport(
      baseURL: baseURL, timeout: .seconds(30), configuration: Self.patientHTTP)
    var environment = ChatEngine.Environment(
      http: wire, live: WireLiveTransport(url: liveURL, connectTimeout: .seconds(30)))
    environment.objects = wrap(wire)
    environment.mediaProcessing = LinuxMediaProcessing()
    return environment
  }

  func stop() async {
    await server.stop()
  }
}

/// The system clock plus an offset the test can raise: tokens expire without waiting.
final class ShiftableClock: TimeSource {
  private let system = SystemTimeSource()
  private let offset = Mutex<Duration>(.zero)

  func now() -> Timestamp { system.now() + offset.withLock { $0 } }
  func uptime() -> Duration { system.uptime() + offset.withLock { $0 } }
  func sleep(for duration: Duration) async throws { try await system.sleep(for: duration) }

  func advance(by duration: Duration) {
    offset.withLock { $0 += duration }
  }
}

/// Keeps the server's log records, to check what they hold; `written` has each as it comes.
final class CollectingLogSink: LogSink {
  private let records = Mutex<[LogRecord]>([])
  let written: AsyncStream<LogRecord>
  private let continuation: AsyncStream<LogRecord>.Continuation

  init() {
    (written, continuation) = AsyncStream.makeStream()
  }

  func write(_ record: LogRecord) {
    records.withLock { $0.append(record) }
    continuation.yield(record)
  }

  var lines: [String] { records.withLock { $0.map(\.line) } }
}

struct TimedOut: Error, CustomStringConvertible {
  let what: String
  var description: String { "timed out waiting for \(what)" }
}

/// The first element of `sequence` that satisfies `predicate`, or `TimedOut` after `timeout`.
/// The bound is a failure deadline, not a way to let something happen.
func firstValue<Element: Sendable>(
  of sequence: AsyncStream<Element>, _ what: String, timeout: Duration = .seconds(20),
  where predicate: @escaping @Sendable (Element) -> Bool
) async throws -> Element {
  try await withThrowingTaskGroup(of: Element?.self) { group in
    group.addTask {
      for await element in sequence where predicate(element) { return element }
      return nil
    }
    group.addTask {
      try await Task.sleep(for: timeout)
      throw TimedOut(what: what)
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let element = first else {
      throw TimedOut(what: what + " (the stream ended)")
    }
    return element
  }
}
