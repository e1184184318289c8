import ChatAPI
import ChatIdentifiers
import Support

/// The answer to a `/v1/live` upgrade request.
public enum LiveUpgrade: Sendable {
  /// Upgrade the connection and serve this subscription on it.
  case accepted(LiveSubscription)
  /// Do not upgrade: send this response (401, 429, 404) instead.
  case refused(APIResponse)
}

extension ChatService {
  /// Authenticates a `/v1/live` upgrade request and opens a subscription for the caller's
  /// device, or says which error response to send instead of upgrading (401, 429, 404 for
  /// another path). The request is logged and counted, with status 101 when accepted.
  ///
  /// An upgrade whose token is refused spends one request of its address's budget
  /// (`ServerConfiguration.addressRateLimit`): once that is spent, such upgrades are 429 with
  /// `Retry-After` instead of 401, so a client looping on a bad token slows down.
  public func openLive(_ request: APIRequest) async -> LiveUpgrade {
    let started = clock.now()
    let route = Endpoint(method: request.method, path: request.path)
    var user: String?
    let result: Result<LiveSubscription, ServiceError>
    do throws(ServiceError) {
      try await loadRevokedFamilies()
      let caller: AccessTokenClaims
      do {
        caller = try authorize(request, at: started)
      } catch {
        if error.code == .unauthorized { try takeAddressBudget(request, at: started) }
        throw error
      }
      user = caller.userId
      guard route == .live else { throw ServiceError.unknownRoute }
      result = .success(subscribe(caller))
    } catch {
      result = .failure(error)
    }
    let failure: ServiceError? = if case .failure(let error) = result { error } else { nil }
    recordRequest(
      method: request.method, route: Self.pattern(of: route), status: failure?.status ?? 101,
      started: started, user: user, failure: failure)
    switch result {
    case .success(let subscription): return .accepted(subscription)
    case .failure(let error): return .refused(error.response)
    }
  }

  private func subscribe(_ caller: AccessTokenClaims) -> LiveSubscription {
    let id = fanOut.nextID()
    let (events, continuation) = AsyncStream<String>.makeStream(
      bufferingPolicy: .bufferingOldest(configuration.liveEventBufferLimit))
    // Weak: the hub holds the continuation, which holds this closure.
    continuation.onTermination = { [weak self, executor] termination in
      // The consumer stopped listening (its task was cancelled or it dropped the stream).
      // A stream the service finished itself is already out of the hub.
      guard case .cancelled = termination, let service = self else { return }
      executor.spawn { await service.closeLive(id) }
    }
    let ending = LiveEnding()
    fanOut.add(
      LiveHub.Subscriber(
        id: id, userId: caller.userId, deviceId: caller.deviceId, family: caller.family,
        continuation: continuation, ending: ending,
        expiry: closeWhenExpired(id, at: caller.expiresAt + configuration.liveTokenGrace)))
    return LiveSubscription(
      id: id, userId: caller.userId, deviceId: caller.deviceId, events: events, ending: ending,
      service: self)
  }

  /// The timer that closes subscription `id` at `deadline` (wall clock): its token's expiry
  /// plus `liveTokenGrace`. Cancelled when the subscription closes first.
  ///
  /// An idle wait (`IdleWait`), like a held long poll's: every open socket always has one, so
  /// a world that waits for nothing else is quiet, as it was before sockets expired.
  private func closeWhenExpired(_ id: UInt64, at deadline: Timestamp) -> Task<Void, Never> {
    let clock = clock
    return executor.spawn { [weak self] in
      // Measured when the task runs: the clock may have moved since it was made.
      let delay = deadline - clock.now()
      if delay > .zero {
        let slept = await IdleWait.$isActive.withValue(true) {
          (try? await clock.sleep(for: delay)) != nil
        }
        guard slept else { return }
      }
      await self?.closeLive(id, because: .tokenExpired)
    }
  }

  /// Ends the subscription, saying why when the service ends it (`LiveSubscription.closure`);
  /// nil when its socket closed.
  func closeLive(_ id: UInt64, because closure: LiveClosure? = nil) {
    fanOut.close(id, because: closure)
    rates.forget(socket: id)
  }

  func peerStoppedReading(_ id: UInt64) {
    fanOut.peerStoppedReading(id)
    rates.forget(socket: id)
  }

  /// A client frame (see `LiveSubscription.receive(_:)`): typing is relayed to the other
  /// members' devices, at most `configuration.typingLimit` per socket (the rest are dropped
  /// before the membership is looked up, and counted); anything else is ignored.
  func receiveLiveFrame(_ text: String, on id: UInt64) async {
    guard let subscriber = fanOut.hub.subscriber(id) else { return }
    guard text.utf8.count <= configuration.maxBodyBytes,
      let frame = try? APICoding.decode(ClientFrame.self, from: text), frame.type == "typing",
      let conversation = ConversationID(serverIssued: frame.conversationId)?.rawValue
    else {
      metrics.liveFramesIgnored += 1
      return
    }
    guard rates.allowsTyping(on: id, at: clock.now()) else {
      metrics.typingFramesDropped += 1
      return
    }
    guard let members = try? await store.memberIds(of: conversation, actingAs: subscriber.userId)
    else {
      metrics.liveFramesIgnored += 1
      return
    }
    // API.md Part 3: typing is dropped in a one-to-one conversation with a blocker.
    if members.count == 2,
      (try? await store.blockers(of: subscriber.userId, among: members))?.isEmpty == false
    {
      metrics.liveFramesIgnored += 1
      return
    }
    publish(
      .typing(conversationId: conversation, userId: subscriber.userId),
      to: members.filter { $0 != subscriber.userId }, isChange: false)
  }

  /// Hands `event` to every open subscription of `users` (sorted member ids), to their long
  /// polls when it is a change, and to the other nodes (`LiveFanOut.publish`); a socket it
  /// closes (fallen behind) forgets its typing budget.
  func publish(_ event: @autoclosure () -> LiveEvent, to users: [String], isChange: Bool = true) {
    forgetBudgets(of: fanOut.publish(event(), to: users, isChange: isChange))
  }

  /// Another node's event, for this node's sockets and long polls of its users.
  package func deliverRelayed(_ event: RelayedEvent) {
    forgetBudgets(of: fanOut.deliverRelayed(event))
  }

  /// The relay's listener is back after a cut: events may have been missed. Every socket
  /// closes (its client reconnects and catches up from the last sequence it holds), every
  /// long poll looks again, and the revoked token families are read again before the next
  /// request (a revocation may have been missed too).
  package func relayResumed() {
    tokens.forgetLoaded()
    forgetBudgets(of: fanOut.relayResumed())
  }

  /// Sockets the fan-out closed: their typing budgets go.
  func forgetBudgets(of sockets: [UInt64]) {
    for socket in sockets { rates.forget(socket: socket) }
  }
}
