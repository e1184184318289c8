import ChatAPI
import ChatServer
import ChatWorld
import Foundation
import SQLite

/// The reference server: the real `ChatService` over the real `ServerStore`, whose database is
/// a file, on a stepped executor of its own. No sockets: the simulated network calls
/// `handle(_:)` and `openLive(_:)` directly.
///
/// A crash freezes the executor between two jobs (anything queued, such as a group commit not
/// yet flushed, is lost, and no reply leaves); a restart is a new store and a new service over
/// the same file. The store never holds a transaction open across jobs (a group commit runs in
/// one), so what the file holds at a crash is exactly what was committed. The signing key is
/// kept across restarts, as a server with a data folder keeps it, so tokens outlive a restart.
final class ServerNode: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  let path: String
  private let world: World
  private let configuration: ServerConfiguration
  private let seed: UInt64
  /// Where media bytes are: outside the server, as S3 is.
  let objects: SimObjectStore
  /// Where pushes go: outside the server, as APNs is (the simulation delivers them).
  let pushes = SimPushGateway()
  private(set) var incarnation = 0
  private(set) var executor: SteppedExecutor?
  private(set) var service: ChatService?
  /// The incarnations that crashed, for the teardown (`stopCrashedIncarnations`).
  private var crashed: [(executor: SteppedExecutor, service: ChatService)] = []

  init(
    path: String, world: World, seed: UInt64, accessTokenTTL: Duration,
    liveTokenGrace: Duration? = nil, knownBugs: ServerKnownBugs = [],
    objects: SimObjectStore = SimObjectStore()
  ) throws {
    self.objects = objects
    self.path = path
    self.world = world
    self.seed = seed
    var random = SimRandom(seed: seed, stream: "server.key")
    var configuration = ServerConfiguration(
      devMode: true, accessTokenTTL: accessTokenTTL,
      signingKey: try SigningKey(bytes: random.bytes(SigningKey.byteCount)))
    configuration.knownBugs = knownBugs
    if let liveTokenGrace { configuration.liveTokenGrace = liveTokenGrace }
    self.configuration = configuration
  }

  var isUp: Bool { service != nil }
  var name: String { "server#\(incarnation)" }

  /// Starts a new incarnation over the file.
  func start() throws {
    incarnation += 1
    let executor = world.makeExecutor("server#\(incarnation)")
    let store = try ServerStore(
      .file(path: path), executor: executor, knownBugs: configuration.knownBugs)
    service = ChatService(
      store: store, configuration: configuration,
      clock: world.clock.offset(by: .zero, wholeMilliseconds: true),
      random: SimRandom(seed: seed, stream: "server#\(incarnation)"), executor: executor,
      media: SimMediaStorage(store: objects), pushGateway: pushes)
    self.executor = executor
    // Pushes owed from before a crash go now, as after a real restart.
    if let service { executor.spawn { await service.startPushes() } }
  }

  /// Stops the current incarnation between two jobs.
  func crash() {
    guard let executor else { return }
    world.freeze(executor)
    if let service { crashed.append((executor, service)) }
    self.executor = nil
    service = nil
  }

  /// The teardown thaws every executor so that what was queued ends; a crashed incarnation's
  /// push dispatcher is stopped then, as its process would be. (After a power loss its
  /// database connection is dead: the dispatcher would otherwise try its queue again every
  /// second for the rest of the teardown.)
  func stopCrashedIncarnations() {
    for (executor, service) in crashed {
      executor.spawn { await service.stopPushes() }
    }
  }

  /// True while `executor` is the live server's.
  func isCurrent(_ executor: SteppedExecutor) -> Bool {
    self.executor === executor
  }
}

extension SimRandom {
  /// `count` random bytes.
  mutating func bytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
  }
}

/// The push gateway of the simulated world: it takes every push (2xx) and hands it to the
/// simulation, which delivers it to the device with the plan's faults (dropped, late, twice).
final class SimPushGateway: PushGateway, @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  var onPush: (PushDelivery) -> Void = { _ in }

  func deliver(_ delivery: PushDelivery) async -> PushGatewayAnswer {
    onPush(delivery)
    return .delivered
  }
}
