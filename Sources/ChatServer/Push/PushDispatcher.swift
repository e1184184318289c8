import ChatAPI
import Support

/// Hands the pushes owed (queued in the store by a message's own transaction, so they survive
/// a restart) to the `PushGateway`, with retries: the push half of API.md Part 2.
///
/// The dispatcher is one timer on the service's executor, set for the earliest push due. When
/// it fires it takes the pushes due (leasing them, in case the server stops before it learns
/// their fate), hands each to the gateway in a task of its own, and saves the result: sent
/// (the next one of that conversation waits for the collapse window), retried with backoff
/// (5xx, no answer), token forgotten (410) or dropped (another 4xx, attempts exhausted, or the
/// device opened a socket meanwhile: it hears everything live).
///
/// Rules a reader could not guess:
/// - A push handed to the gateway is due again after `lease` should its result never be saved
///   (the server stopped mid-delivery): at least once, never lost.
/// - At most `batch` pushes are taken per round and `maxInFlight` are at the gateway at once;
///   when full, the delivery that ends starts the next round.
/// - Once stopped (`stop()`), nothing more goes to the gateway: a push taken meanwhile waits
///   for its lease, as after a crash, and one about to go is saved as due now.
/// - The backoff's jitter comes from the service's random source, so a seed replays a run.
///
/// An actor on the service's executor: its timers and deliveries run there, in the order
/// their jobs run, like the service's own work.
actor PushDispatcher {
  /// API.md: at most one push per conversation and device per 2 seconds.
  static let collapseWindow = Duration.seconds(2)
  static let lease = Duration.seconds(60)
  static let batch = 64
  static let maxInFlight = 256
  /// Deliveries tried before a push is dropped, and the backoff between them.
  static let attempts = 8
  static let retryPolicy = RetryPolicy(base: .seconds(1), cap: .seconds(300))

  /// What `/metrics` counts of the pushes.
  struct Counters {
    var sent = 0
    var collapsed = 0
    var failed = 0
    var retries = 0
    var tokensRemoved = 0
  }

  nonisolated let executor: any SerialTaskExecutor
  private let gateway: any PushGateway
  private let store: ServerStore
  private let clock: any TimeSource
  private let random: SharedRandom
  private let log: any LogSink
  /// Devices with a socket open: their pushes are skipped.
  private let online: OnlineDevices
  /// The pending wake-up, and when it is due (wall-clock ms).
  private var timer: (due: Int64, task: Task<Void, Never>)?
  /// The timer's task while its round runs.
  private var round: Task<Void, Never>?
  /// Deliveries handed to the gateway whose result is not saved yet, by id.
  private var deliveries: [UInt64: Task<Void, Never>] = [:]
  private var lastDelivery: UInt64 = 0
  /// Set by `stop()`: nothing more is handed to the gateway.
  private(set) var isStopped = false
  private(set) var counters = Counters()

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  init(
    gateway: any PushGateway, store: ServerStore, clock: any TimeSource, random: SharedRandom,
    executor: any SerialTaskExecutor, log: any LogSink, online: OnlineDevices
  ) {
    self.gateway = gateway
    self.store = store
    self.clock = clock
    self.random = random
    self.executor = executor
    self.log = log
    self.online = online
  }

  /// What a new message's write needs to queue its pushes; nil once stopped.
  func queueRequest() -> PushQueueRequest? {
    guard !isStopped else { return nil }
    return PushQueueRequest(skipping: online.all, window: Self.collapseWindow)
  }

  /// A message was stored: count what it queued and wake the dispatcher when due.
  func queued(_ pushes: PushQueueing) {
    counters.collapsed += pushes.collapsed
    if let due = pushes.earliestDue { schedule(at: due) }
  }

  /// Starts on pushes owed from before (a restart): call once at start.
  func start() async {
    await scheduleNext()
  }

  /// Hands nothing more to the gateway and returns when every delivery in flight has its
  /// result saved (each is bounded by the gateway's own timeout). What is still owed stays
  /// queued for the next start.
  func stop() async {
    isStopped = true
    timer?.task.cancel()
    timer = nil
    // A round taking its pushes now hands them to no gateway (see `dispatch`).
    await round?.value
    while let delivery = deliveries.values.first { await delivery.value }
  }

  private func scheduleNext() async {
    do {
      if let due = try await store.nextPushDue() { schedule(at: due) }
    } catch {
      log.write(LogRecord(.error, "push.queue_unreadable", [("error", "\(error)")]))
    }
  }

  /// Makes sure the dispatcher wakes by `due` (a wall-clock millisecond).
  func schedule(at due: Int64) {
    guard !isStopped else { return }
    if let timer, timer.due <= due { return }
    timer?.task.cancel()
    let clock = clock
    let task = executor.spawn { [weak self] in
      // Measured when the task runs: the clock may have moved since it was made.
      let delay = due - clock.now().millisecondsSince1970
      if delay > 0 {
        guard (try? await clock.sleep(for: .milliseconds(delay))) != nil else { return }
      }
      await self?.dispatch()
    }
    timer = (due, task)
  }

  /// One round: the pushes due now go to the gateway.
  func dispatch() async {
    round = timer?.task
    timer = nil
    defer { round = nil }
    guard !isStopped else { return }
    let room = min(Self.batch, Self.maxInFlight - deliveries.count)
    // Full: a delivery that ends starts the next round.
    guard room > 0 else { return }
    let due: [OwedPush]
    do {
      due = try await store.takeDuePushes(at: clock.now(), limit: room, lease: Self.lease)
    } catch {
      log.write(LogRecord(.error, "push.queue_unreadable", [("error", "\(error)")]))
      schedule(at: clock.now().millisecondsSince1970 + 1_000)
      return
    }
    // Stopped meanwhile: the pushes taken wait for their lease, as after a crash.
    guard !isStopped else { return }
    for push in due {
      lastDelivery += 1
      let id = lastDelivery
      deliveries[id] = executor.spawn { [self] in await deliver(push, id: id) }
    }
    if due.count == room {
      schedule(at: clock.now().millisecondsSince1970)
    } else {
      await scheduleNext()
    }
  }

  private func deliver(_ push: OwedPush, id: UInt64) async {
    let result: PushResult
    let outcome: String
    if online.contains(push.device) || isStopped {
      // It hears everything live now (or the server is stopping: the lease brings it back).
      result = isStopped ? .retry(at: clock.now().millisecondsSince1970) : .dropped
      outcome = "skipped"
    } else {
      let answer = await gateway.deliver(
        PushDelivery(
          provider: push.provider, token: push.token, collapseId: push.conversationId,
          payload: push.payload))
      (result, outcome) = self.result(of: push, answer)
    }
    // Who and what became of it: never the token or the text.
    log.write(
      LogRecord(
        .info, "push",
        [
          ("user", push.userId), ("device", push.deviceId), ("outcome", outcome),
          ("attempt", String(push.attempts + 1)),
        ]))
    do {
      try await store.finishPush(
        push, result, at: clock.now().millisecondsSince1970, window: Self.collapseWindow)
    } catch {
      log.write(LogRecord(.error, "push.result_unsaved", [("error", "\(error)")]))
    }
    deliveries[id] = nil
    await scheduleNext()
  }

  /// What the gateway's answer makes of the push, and the log's word for it.
  private func result(of push: OwedPush, _ answer: PushGatewayAnswer) -> (PushResult, String) {
    let now = clock.now().millisecondsSince1970
    switch answer {
    case .delivered:
      counters.sent += 1
      return (.sent(at: now), "sent")
    case .tokenGone:
      counters.tokensRemoved += 1
      return (.tokenGone, "token_gone")
    case .refused(let status):
      counters.failed += 1
      return (.dropped, "refused_\(status)")
    case .temporaryFailure:
      guard push.attempts + 1 < Self.attempts else {
        counters.failed += 1
        return (.dropped, "gave_up")
      }
      let wait = Self.retryPolicy.delay(
        afterFailure: push.attempts + 1, random: SeededRandomSource(seed: random.next()))
      counters.retries += 1
      return (.retry(at: now + wait.milliseconds), "retry")
    }
  }

  /// For tests: the pending round and the deliveries in flight, to await after moving the
  /// clock.
  func work() -> [Task<Void, Never>] {
    let now = clock.now().millisecondsSince1970
    let due = timer.flatMap { $0.due <= now ? $0.task : nil }
    return [round, due].compactMap { $0 }
      + deliveries.keys.sorted().compactMap { deliveries[$0] }
  }
}
