import Dispatch
import Synchronization
import Wire

/// What a ``ClosedLoop`` does with each answer. It runs on its loop's thread during the run
/// (one recorder per loop), and the caller reads it after ``ClosedLoop/run(_:threads:name:giveUpAt:recorder:)``
/// returns; so a conforming class is `@unchecked Sendable` for that reason.
public protocol LoadRecorder: AnyObject, Sendable {
  /// The loop's connections are open and its first requests go out now (monotonic
  /// nanoseconds, `CLOCK_MONOTONIC`).
  func started(at time: Int64)
  /// Client `client` (its index in the run) read the response, with `status`, to the request
  /// it wrote at `sentAt`, at `answeredAt`; returns whether the client sends another.
  func record(client: Int, status: Int, sentAt: Int64, answeredAt: Int64) -> Bool
}

extension LoadRecorder {
  public func started(at time: Int64) {}
}

/// Closed-loop HTTP load through Wire: each client holds one keep-alive ``ClientChannel`` and
/// writes its next request as soon as the last is answered, until its recorder says stop.
/// The clients are spread over `threads` ``ClientLoop``s, each an `epoll` thread; responses
/// are decoded by Wire's ``HTTPResponseParser``. `chat-load` (``SendLoad``) and `chat-bench`
/// (B4's bare round trips, B6) run their HTTP load with it.
///
/// Any connection that ends (the server closed it, a response Wire refuses) fails the run, and
/// so does an answer that has not come by `giveUpAt`.
public enum ClosedLoop {
  /// One client: where it connects and what it sends.
  public struct Client: Sendable {
    /// A numeric IPv4 or IPv6 address.
    public var host: String
    public var port: Int
    /// The method of every request of the client (the answer to a HEAD has no body).
    public var method: HTTPMethod
    /// The bytes of the client's `n`-th request (from 0), made on its loop's thread when the
    /// request goes out (``LoadRequest`` writes them); an error ends the run.
    public var request: @Sendable (Int) throws -> [UInt8]

    public init(
      host: String = "127.0.0.1", port: Int, method: HTTPMethod = .get,
      request: @escaping @Sendable (Int) throws -> [UInt8]
    ) {
      self.host = host
      self.port = port
      self.method = method
      self.request = request
    }
  }

  /// The CPU and wall time of one loop's thread from its first request to its last answer.
  public struct LoopTime: Sendable {
    public var cpuNanoseconds: Int64
    public var wallNanoseconds: Int64
  }

  /// Runs `clients` (client `i` on loop `i % threads`) until each has stopped, and returns
  /// each loop's recorder (made by `recorder` with the loop's index) and time. Blocks the
  /// calling thread.
  ///
  /// - Parameter giveUpAt: monotonic nanoseconds after which an answer still awaited is a
  ///   failure ("the server is stuck").
  public static func run<Recorder: LoadRecorder>(
    _ clients: [Client], threads: Int = 1, name: String, giveUpAt: Int64,
    recorder: (Int) -> Recorder
  ) throws(LoadError) -> [(recorder: Recorder, time: LoopTime)] {
    let count = max(1, min(threads, clients.count))
    let done = DispatchGroup()
    var drivers: [LoopDriver<Recorder>] = []
    defer { for driver in drivers { driver.loop.stop() } }
    for index in 0..<count {
      let loop: ClientLoop
      do {
        loop = try ClientLoop(name: "\(name).\(index)")
      } catch {
        throw LoadError("cannot start a load loop: \(error)")
      }
      let share = stride(from: index, to: clients.count, by: count).map { ($0, clients[$0]) }
      let driver = LoopDriver(share, recorder: recorder(index), loop: loop, done: done)
      drivers.append(driver)
      done.enter()
      loop.execute { driver.start() }
    }
    let wait = max(0, giveUpAt - monotonicNanoseconds())
    if done.wait(timeout: .now() + .nanoseconds(Int(wait))) == .timedOut {
      for driver in drivers {
        driver.loop.execute {
          driver.finish(LoadError("answers stopped coming: the server is stuck"))
        }
      }
      _ = done.wait(timeout: .now() + .seconds(10))
    }
    var results: [(recorder: Recorder, time: LoopTime)] = []
    for driver in drivers {
      switch driver.outcome.withLock({ $0 }) {
      case .success(let time)?: results.append((driver.recorder, time))
      case .failure(let error)?: throw error
      case nil: throw LoadError("a load loop did not stop")
      }
    }
    return results
  }
}

/// One loop's share of a ``ClosedLoop``: connects its clients, then keeps one request of each
/// in flight until the recorder stops it.
private final class LoopDriver<Recorder: LoadRecorder>: @unchecked Sendable {
  // @unchecked: every property but `outcome` (a Mutex) is touched only on `loop`'s thread
  // after `start`; the caller reads `recorder` only once `outcome` is set.
  let loop: ClientLoop
  let recorder: Recorder
  let outcome = Mutex<Result<ClosedLoop.LoopTime, LoadError>?>(nil)
  private let clients: [(index: Int, client: ClosedLoop.Client)]
  private let done: DispatchGroup
  private var channels: [ClientChannel?]
  private var sent: [Int]
  private var sentAt: [Int64]
  private var connecting = 0
  private var active = 0
  private var cpuStart: Int64 = 0
  private var wallStart: Int64 = 0

  init(
    _ clients: [(index: Int, client: ClosedLoop.Client)], recorder: Recorder, loop: ClientLoop,
    done: DispatchGroup
  ) {
    self.clients = clients
    self.recorder = recorder
    self.loop = loop
    self.done = done
    channels = Array(repeating: nil, count: clients.count)
    sent = Array(repeating: 0, count: clients.count)
    sentAt = Array(repeating: 0, count: clients.count)
  }

  private var isFinished: Bool { outcome.withLock { $0 != nil } }

  func start() {
    connecting = clients.count
    guard connecting > 0 else { return begin() }
    for (slot, entry) in clients.enumerated() {
      ClientChannel.connect(host: entry.client.host, port: entry.client.port, on: loop) {
        [self] result in connected(slot, result)
      }
    }
  }

  private func connected(_ slot: Int, _ result: Result<ClientChannel, ConnectError>) {
    let channel: ClientChannel
    switch result {
    case .failure(let error):
      return finish(LoadError("a load connection could not open: \(error)"))
    case .success(let opened):
      channel = opened
    }
    guard !isFinished else { return channel.close() }
    channels[slot] = channel
    channel.onResponse = { [self] head, _ in answered(slot, status: head.status.code) }
    channel.onClose = { [self] failure in finish(LoadError("a load connection ended: \(failure)")) }
    connecting -= 1
    if connecting == 0 { begin() }
  }

  private func begin() {
    cpuStart = threadCPUNanoseconds()
    wallStart = monotonicNanoseconds()
    recorder.started(at: wallStart)
    active = clients.count
    if active == 0 { return finish(nil) }
    for slot in clients.indices { send(slot) }
  }

  private func send(_ slot: Int) {
    let client = clients[slot].client
    let bytes: [UInt8]
    do {
      bytes = try client.request(sent[slot])
    } catch {
      return finish(error as? LoadError ?? LoadError("cannot write a request: \(error)"))
    }
    sent[slot] += 1
    sentAt[slot] = monotonicNanoseconds()
    channels[slot]?.send(request: bytes, method: client.method)
  }

  private func answered(_ slot: Int, status: Int) {
    let now = monotonicNanoseconds()
    if recorder.record(
      client: clients[slot].index, status: status, sentAt: sentAt[slot], answeredAt: now)
    {
      send(slot)
    } else {
      active -= 1
      if active == 0 { finish(nil) }
    }
  }

  /// Ends this loop's share: closes its connections and tells the caller.
  func finish(_ error: LoadError?) {
    guard !isFinished else { return }
    let time = ClosedLoop.LoopTime(
      cpuNanoseconds: threadCPUNanoseconds() - cpuStart,
      wallNanoseconds: monotonicNanoseconds() - wallStart)
    for channel in channels { channel?.close() }
    channels = Array(repeating: nil, count: channels.count)
    outcome.withLock { $0 = error.map { .failure($0) } ?? .success(time) }
    done.leave()
  }
}
