import ChatAPI
import Support

/// Push nudges (API.md Part 2): tokens per device, a push owed to every other member's device
/// with a token and no open socket when a message is stored (queued in the message's own
/// transaction, so it survives a restart), collapsed per conversation and device, handed to the
/// `PushGateway` with retries.
///
/// The dispatcher is one timer on the service's executor, set for the earliest push due. When
/// it fires it takes the pushes due (leasing them, in case the server stops before it learns
/// their fate), hands each to the gateway in a task of its own, and saves the result: sent
/// (the next one of that conversation waits for the collapse window), retried with backoff
/// (5xx, no answer), token forgotten (410) or dropped (another 4xx, attempts exhausted, or the
/// device opened a socket meanwhile: it hears everything live).
extension ChatService {
  /// API.md: at most one push per conversation and device per 2 seconds.
  static let pushCollapseWindow = Duration.seconds(2)
  /// A push handed to the gateway is due again after this, should its result never be saved
  /// (the server stopped mid-delivery): at least once, never lost.
  static let pushLease = Duration.seconds(60)
  /// Pushes taken per round, and handed to the gateway at once at most.
  static let pushBatch = 64
  static let maxPushesInFlight = 256
  /// Deliveries tried before a push is dropped, and the backoff between them.
  static let pushAttempts = 8
  static let pushRetryPolicy = RetryPolicy(base: .seconds(1), cap: .seconds(300))
  /// API.md leaves tokens opaque; this bounds what a device may store.
  static let maxPushTokenBytes = 4_096

  /// `PUT /v1/devices/me/push`: 204.
  func registerPush(_ request: APIRequest, for caller: AccessTokenClaims)
    async throws -> APIResponse
  {
    let body = try RequestBody(request.body)
    guard case .string(let provider)? = body["provider"] else {
      throw ServiceError.badRequest("provider must be a string: apns, fcm or webhook.")
    }
    guard case .string(let token)? = body["token"] else {
      throw ServiceError.badRequest("token must be a string.")
    }
    guard let provider = PushProvider(rawValue: provider) else {
      throw ServiceError.invalid("provider must be apns, fcm or webhook.")
    }
    guard !token.isEmpty, token.utf8.count <= Self.maxPushTokenBytes else {
      throw ServiceError.invalid("token must hold 1 to \(Self.maxPushTokenBytes) bytes.")
    }
    try await store.registerPush(
      PushRegistration(provider: provider, token: token), for: caller.device)
    return .noContent
  }

  /// `DELETE /v1/devices/me/push`: 204, also when the device had no token.
  func removePush(for caller: AccessTokenClaims) async throws -> APIResponse {
    try await store.removePush(for: caller.device)
    return .noContent
  }

  /// What a new message's write needs to queue its pushes; nil when pushes are off.
  var pushQueueRequest: PushQueueRequest? {
    guard pushGateway != nil, !pushesStopped else { return nil }
    return PushQueueRequest(skipping: hub.devicesOnline, window: Self.pushCollapseWindow)
  }

  /// A message was stored: count what it queued and wake the dispatcher when due.
  func queued(_ pushes: PushQueueing) {
    metrics.pushesCollapsed += pushes.collapsed
    if let due = pushes.earliestDue { schedulePushes(at: due) }
  }

  /// Starts the dispatcher on pushes owed from before (a restart): call once at start.
  public func startPushes() async {
    guard pushGateway != nil else { return }
    await scheduleNextPush()
  }

  /// Hands nothing more to the gateway and returns when every delivery in flight has its
  /// result saved (each is bounded by the gateway's own timeout). What is still owed stays
  /// queued for the next start.
  public func stopPushes() async {
    pushesStopped = true
    pushTimer?.task.cancel()
    pushTimer = nil
    // A round taking its pushes now hands them to no gateway (see `dispatchPushes`).
    await pushRound?.value
    while let delivery = pushDeliveries.values.first { await delivery.value }
  }

  private func scheduleNextPush() async {
    do {
      if let due = try await store.nextPushDue() { schedulePushes(at: due) }
    } catch {
      log.write(LogRecord(.error, "push.queue_unreadable", [("error", "\(error)")]))
    }
  }

  /// Makes sure the dispatcher wakes by `due` (a wall-clock millisecond).
  func schedulePushes(at due: Int64) {
    guard pushGateway != nil, !pushesStopped else { return }
    if let timer = pushTimer, timer.due <= due { return }
    pushTimer?.task.cancel()
    let clock = clock
    let task = executor.spawn { [weak self] in
      // Measured when the task runs: the clock may have moved since it was made.
      let delay = due - clock.now().millisecondsSince1970
      if delay > 0 {
        guard (try? await clock.sleep(for: .milliseconds(delay))) != nil else { return }
      }
      await self?.dispatchPushes()
    }
    pushTimer = (due, task)
  }

  /// One round: the pushes due now go to the gateway.
  func dispatchPushes() async {
    pushRound = pushTimer?.task
    pushTimer = nil
    defer { pushRound = nil }
    guard let gateway = pushGateway, !pushesStopped else { return }
    let room = min(Self.pushBatch, Self.maxPushesInFlight - pushDeliveries.count)
    // Full: a delivery that ends starts the next round.
    guard room > 0 else { return }
    let due: [OwedPush]
    do {
      due = try await store.takeDuePushes(at: clock.now(), limit: room, lease: Self.pushLease)
    } catch {
      log.write(LogRecord(.error, "push.queue_unreadable", [("error", "\(error)")]))
      schedulePushes(at: clock.now().millisecondsSince1970 + 1_000)
      return
    }
    // Stopped meanwhile: the pushes taken wait for their lease, as after a crash.
    guard !pushesStopped else { return }
    for push in due {
      lastPushDelivery += 1
      let id = lastPushDelivery
      pushDeliveries[id] = executor.spawn { [self] in await deliver(push, id: id, via: gateway) }
    }
    if due.count == room {
      schedulePushes(at: clock.now().millisecondsSince1970)
    } else {
      await scheduleNextPush()
    }
  }

  private func deliver(_ push: OwedPush, id: UInt64, via gateway: any PushGateway) async {
    let result: PushResult
    let outcome: String
    if hub.devicesOnline.contains(push.device) || pushesStopped {
      // It hears everything live now (or the server is stopping: the lease brings it back).
      result = pushesStopped ? .retry(at: clock.now().millisecondsSince1970) : .dropped
      outcome = "skipped"
    } else {
      let answer = await gateway.deliver(
        PushDelivery(
          provider: push.provider, token: push.token, collapseId: push.conversationId,
          payload: push.payload))
      let now = clock.now().millisecondsSince1970
      switch answer {
      case .delivered:
        result = .sent(at: now)
        outcome = "sent"
        metrics.pushesSent += 1
      case .tokenGone:
        result = .tokenGone
        outcome = "token_gone"
        metrics.pushTokensRemoved += 1
      case .refused(let status):
        result = .dropped
        outcome = "refused_\(status)"
        metrics.pushesFailed += 1
      case .temporaryFailure:
        if push.attempts + 1 >= Self.pushAttempts {
          result = .dropped
          outcome = "gave_up"
          metrics.pushesFailed += 1
        } else {
          let wait = Self.pushRetryPolicy.delay(
            afterFailure: push.attempts + 1, random: SeededRandomSource(seed: random.next()))
          result = .retry(at: now + wait.milliseconds)
          outcome = "retry"
          metrics.pushRetries += 1
        }
      }
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
        push, result, at: clock.now().millisecondsSince1970, window: Self.pushCollapseWindow)
    } catch {
      log.write(LogRecord(.error, "push.result_unsaved", [("error", "\(error)")]))
    }
    pushDeliveries[id] = nil
    await scheduleNextPush()
  }

  /// For tests: the dispatcher's pending round and the deliveries in flight, to await after
  /// moving the clock.
  func pushWork() -> [Task<Void, Never>] {
    let now = clock.now().millisecondsSince1970
    let round = pushTimer.flatMap { $0.due <= now ? $0.task : nil }
    return [pushRound, round].compactMap { $0 }
      + pushDeliveries.keys.sorted().compactMap { pushDeliveries[$0] }
  }
}
