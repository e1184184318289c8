import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatWorld
import Foundation
import SQLite
import Support

/// A deterministic world for tests: the real `ChatService` on an in-memory SQLite, any number of
/// real engines (each with its own database), one manual clock, and one serial executor that
/// runs all of it, so `settle()` knows when everything has stopped moving. No sleeps.
public final class TestWorld: Sendable {
  /// The world's server: its executor runs the engines too.
  public let server: WorldServer
  public var executor: ThreadExecutor { server.executor }
  /// The world's one clock (ChatWorld's), as the server reads it.
  public var clock: ManualClock { server.clock }
  public var service: ChatService { server.service }
  /// The engines' log lines (the service logs nowhere here).
  public var log: CapturingLogSink { server.log }

  /// - Parameters:
  ///   - accessTokenTTL: how long tokens live on the server.
  ///   - rateLimit: the server's per-user limit; off by default.
  public init(accessTokenTTL: Duration = .seconds(900), rateLimit: RateLimit? = nil) throws {
    server = try WorldServer(
      name: "test.world",
      configuration: ServerConfiguration(
        devMode: true, accessTokenTTL: accessTokenTTL, rateLimit: rateLimit),
      clock: ManualClock(), seed: 7, servicesLog: false)
  }

  /// A new device's network, in front of the shared service.
  public func network() -> TestNetwork {
    TestNetwork(service: service, executor: executor, clock: clock)
  }

  /// Signs a device in (dev login) and opens its engine on a database of its own.
  ///
  /// `wrapHTTP` and `wrapLive` put a test's own transport around the network's (to rewrite
  /// replies, or to slow a close); the network still sees, and counts, every call.
  public func device(
    _ user: String, _ device: String = "phone", database: ChatEngine.Storage = .memory,
    network: TestNetwork? = nil, wallClockOffset: Duration = .zero, seed: UInt64 = 1,
    staleSendAfter: Duration? = .seconds(24 * 3600),
    wrapHTTP: (any HTTPTransport) -> any HTTPTransport = { $0 },
    wrapLive: (any LiveTransport) -> any LiveTransport = { $0 }
  ) async throws -> TestDevice {
    let network = network ?? self.network()
    let clock = self.clock.offset(by: wallClockOffset)
    let random = SeededRandomSource(seed: seed)
    var environment = ChatEngine.Environment(
      http: wrapHTTP(network.http), live: wrapLive(network.live), clock: clock, random: random,
      ids: UUIDv7Generator(now: { clock.now().date }, random: { random.next() }), log: log,
      executor: executor)
    environment.staleSendAfter = staleSendAfter
    let engine = try await ChatEngine.devSignIn(
      user: UserID(user), device: DeviceID(device), database: database, environment: environment)
    return TestDevice(engine: engine, network: network, environment: environment)
  }

  /// Opens an engine again on an existing database (a relaunch).
  public func reopen(_ device: TestDevice, database: ChatEngine.Storage) async throws -> TestDevice
  {
    let engine = try await ChatEngine.open(database, environment: device.environment)
    return TestDevice(engine: engine, network: device.network, environment: device.environment)
  }

  /// Returns when nothing is running: every task waits for the clock, the network or an event.
  public func settle() async {
    await executor.waitUntilIdle()
  }

  /// Moves time forward by `duration`, waking sleepers in deadline order and letting each wake
  /// settle before the next.
  public func advance(by duration: Duration) async {
    await settle()
    let target = clock.uptime() + duration
    while clock.step(toward: target) {
      await settle()
    }
    await settle()
  }

  /// Closes every engine's work on the shared thread and stops it.
  public func shutdown() async {
    await settle()
    executor.shutdown()
  }
}
