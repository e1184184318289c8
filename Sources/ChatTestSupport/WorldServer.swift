import ChatServer
import ChatWorld
import Support

/// The server of a test world, built in one place: the real `ChatService` over a real SQLite
/// store (in memory or a file), both on one `ThreadExecutor`, reading the world's one
/// `ManualClock` and a seeded random stream. `TestWorld` puts engines beside it, on the same
/// executor; ChatServerTests' `TestServer` speaks to it in raw requests.
public final class WorldServer: Sendable {
  public let executor: ThreadExecutor
  public let clock: ManualClock
  public let store: ServerStore
  public let service: ChatService
  /// The world's log sink: what the service logged, unless `servicesLog` was false.
  public let log: CapturingLogSink

  /// - Parameter servicesLog: false: the service logs nowhere, and `log` holds the lines of
  ///   whatever else writes to it (a test world's engines) alone.
  public init(
    name: String, configuration: ServerConfiguration, location: ServerStore.Location = .memory,
    clock: ManualClock, seed: UInt64, log: CapturingLogSink = CapturingLogSink(),
    servicesLog: Bool = true, media: (any MediaStorage)? = nil,
    pushGateway: (any PushGateway)? = nil, relay: (any LiveRelay)? = nil
  ) throws {
    let executor = ThreadExecutor(name: name)
    self.executor = executor
    self.clock = clock
    self.log = log
    store = try ServerStore(location, executor: executor)
    service = ChatService(
      store: store, configuration: configuration, clock: clock,
      random: SplitMix64(seed: seed), executor: executor,
      log: servicesLog ? log : DiscardingLogSink(), media: media, pushGateway: pushGateway,
      relay: relay)
  }
}
