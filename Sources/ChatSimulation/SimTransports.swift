import ChatAPI
import ChatData
import ChatServer
import ChatWorld
import Foundation

/// Something in flight that ends exactly once, whoever ends it first (the reply, a fault, the
/// timeout); later attempts to end it do nothing.
final class OneShot<Success: Sendable, Failure: Error>: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  private var continuation: CheckedContinuation<Result<Success, Failure>, Never>?
  /// Called once, when it ends (cancels its timeout).
  var onFinish: (() -> Void)?

  init(_ continuation: CheckedContinuation<Result<Success, Failure>, Never>) {
    self.continuation = continuation
  }

  /// False when it was already resolved.
  @discardableResult
  func finish(_ result: Result<Success, Failure>) -> Bool {
    guard let continuation else { return false }
    self.continuation = nil
    onFinish?()
    onFinish = nil
    continuation.resume(returning: result)
    return true
  }
}

/// One HTTP request in flight: resolved once, by the reply, a fault or the timeout.
typealias Exchange = OneShot<APIResponse, TransportError>

/// One socket being opened: resolved once.
typealias SocketAttempt = OneShot<any LiveSocket, LiveConnectError>

/// A device incarnation's `HTTPTransport`: the simulated network.
struct SimHTTPTransport: HTTPTransport {
  /// Unowned: the engine holds its transports, and the simulation holds the engine.
  unowned let simulation: Simulation
  let device: SimDevice
  let incarnation: Incarnation

  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    let result = await withCheckedContinuation { continuation in
      simulation.startExchange(request, from: device, incarnation, Exchange(continuation))
    }
    return try result.get()
  }
}

/// A device incarnation's `ObjectTransfer`: the simulated network to the object store.
struct SimObjectTransfer: ObjectTransfer {
  unowned let simulation: Simulation
  let device: SimDevice
  let incarnation: Incarnation

  func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse {
    let result = await withCheckedContinuation { continuation in
      simulation.startObjectExchange(request, from: device, incarnation, Exchange(continuation))
    }
    return try result.get()
  }
}

/// A device incarnation's `LiveTransport`: the simulated network.
struct SimLiveTransport: LiveTransport {
  unowned let simulation: Simulation
  let device: SimDevice
  let incarnation: Incarnation

  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    let result = await withCheckedContinuation { continuation in
      simulation.connect(
        headers: headers, from: device, incarnation, SocketAttempt(continuation))
    }
    return try result.get()
  }
}

/// One `/v1/live` socket: the server's subscription on one side, the device's stream of
/// frames on the other, and the simulated wire between them (in order, `latency` apart).
final class SimSocket: LiveSocket, @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  let id: Int
  let messages: AsyncStream<String>
  let device: SimDevice
  let incarnation: Incarnation
  /// The frames on their way, with one held back by a reorder fault (delivered after the next
  /// one, or a little later).
  var line = FrameLine()
  /// Counts holds, so a late release knows whether its frame is still the one held.
  var holds = 0
  /// Half-open: every frame is lost until the socket drops.
  var isSilent = false
  private let continuation: AsyncStream<String>.Continuation
  private let subscription: LiveSubscription
  private let server: SteppedExecutor
  private unowned let simulation: Simulation
  private(set) var isOpen = true
  /// When the last frame reaches the device: a later one never overtakes it.
  private var lastArrival: Duration = .zero

  init(
    simulation: Simulation, device: SimDevice, incarnation: Incarnation,
    subscription: LiveSubscription, server: SteppedExecutor
  ) {
    simulation.socketCount += 1
    id = simulation.socketCount
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
    self.simulation = simulation
    self.device = device
    self.incarnation = incarnation
    self.subscription = subscription
    self.server = server
    simulation.sockets.append(self)
  }

  /// The server incarnation this socket is connected to.
  var serverExecutor: SteppedExecutor { server }

  /// Reads the server's frames on the server's executor and sends each down the wire.
  func startPumping() {
    server.spawn { [self] in
      for await frame in subscription.events {
        for delivered in simulation.deliveries(of: frame, on: self) {
          deliver(delivered)
        }
      }
      // The server closed it (it fell behind, or it was closed): the device hears later.
      simulation.world.schedule(after: simulation.latency()) { [self] in
        drop(reason: "closed by the server")
      }
    }
  }

  /// Sends one frame down the wire, after every frame sent before it.
  func deliver(_ frame: String) {
    let world = simulation.world
    let arrival = max(world.now + simulation.latency(), lastArrival)
    lastArrival = arrival
    world.schedule(after: arrival - world.now) { [self] in
      guard isOpen else { return }
      continuation.yield(frame)
    }
  }

  func send(_ text: String) async throws {
    guard isOpen else { throw CancellationError() }
    let world = simulation.world
    world.schedule(after: simulation.latency()) { [self] in
      guard isOpen, simulation.server.isCurrent(server) else { return }
      let subscription = subscription
      server.spawn { await subscription.receive(text) }
    }
  }

  func close() async {
    drop(reason: "closed by the device")
  }

  /// Ends both sides: the device's stream at once, the server's subscription a moment later.
  func drop(reason: String) {
    guard isOpen else { return }
    isOpen = false
    line = FrameLine()
    continuation.finish()
    device.sockets.removeAll { $0 === self }
    simulation.sockets.removeAll { $0 === self }
    simulation.history.trace("socket \(id) of \(incarnation.name) ends: \(reason)")
    // A crashed server's subscription is closed only if it is thawed at teardown.
    let subscription = subscription
    let server = server
    simulation.world.schedule(after: simulation.latency()) {
      server.spawn { await subscription.close() }
    }
  }
}
