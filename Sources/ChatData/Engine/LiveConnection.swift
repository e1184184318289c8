import ChatDomain
import Foundation
import SQLite
import Support

/// The one socket (`/v1/live`), shared by the source repositories: it connects, reconnects with
/// backoff and jitter, and hands each frame, in order, to the engine's router.
///
/// The socket is best effort: after every connect, `onConnected` runs the catch-up before the
/// socket's events are trusted to be complete. A socket that looks open but is dead is found by
/// the transport's pings, which end `messages`. A 401 on the upgrade refreshes the token once and
/// reconnects; a refused refresh ends the session.
///
/// A network that blocks WebSockets (a proxy refusing the upgrade) while HTTP works: after
/// `failedUpgradesBeforePolling` failed upgrades in a row, each followed by an HTTP request
/// that worked, updates come by long poll (`GET /v1/sync?wait=`) with the same catch-up rules
/// as a connect; the socket is tried again every `socketRetryWhilePolling`. With
/// `LiveUpdates.longPollOnly` the socket is never tried.
actor LiveConnection: ConnectionStatus {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  private let transport: any LiveTransport
  private let session: SessionManager
  private let outgoing: OpenSocket
  private let onFrame: @Sendable (String) async -> Void
  private let onConnected: @Sendable () async -> Void
  /// One HTTP request that says whether HTTP works (a `/v1/sync`, saved like any other).
  private let probeHTTP: @Sendable () async -> Bool
  /// One long poll and the catch-ups it calls for.
  private let longPoll: @Sendable () async -> LongPollOutcome
  private let mode: LiveUpdates
  /// Upgrades that failed in a row while HTTP worked.
  private var failedUpgrades = 0

  private var isRunning = false
  private var loop: Task<Void, Never>?
  private var socket: (any LiveSocket)?
  private let pause: RetryPause
  private var hasConnectedBefore = false
  /// Bumped by every start and stop, so a loop knows when it has been replaced.
  private var generation = 0
  private var state: ConnectionState = .idle
  private let subscribers = Broadcaster<ConnectionState>(buffering: .bufferingNewest(1))

  init(
    context: EngineContext, transport: any LiveTransport, session: SessionManager,
    outgoing: OpenSocket, onFrame: @escaping @Sendable (String) async -> Void,
    onConnected: @escaping @Sendable () async -> Void,
    probeHTTP: @escaping @Sendable () async -> Bool = { false },
    longPoll: @escaping @Sendable () async -> LongPollOutcome = { .failed },
    mode: LiveUpdates = .automatic
  ) {
    self.context = context
    self.transport = transport
    self.session = session
    self.outgoing = outgoing
    self.pause = RetryPause(context: context)
    self.onFrame = onFrame
    self.onConnected = onConnected
    self.probeHTTP = probeHTTP
    self.longPoll = longPoll
    self.mode = mode
  }

  // MARK: - State

  /// The connection's state now and on every change.
  func states() -> AsyncStream<ConnectionState> {
    subscribers.subscribe(initial: state) { [weak self] id in
      guard let self else { return }
      self.context.spawn { await self.unsubscribe(id) }
    }
  }

  /// `states()` for a caller that cannot wait (a protocol's synchronous requirement).
  nonisolated func connectionStates() -> AsyncStream<ConnectionState> {
    context.forward { await self.states() }
  }

  private func unsubscribe(_ id: Int) {
    subscribers.remove(id)
  }

  var currentState: ConnectionState { state }

  private func set(_ newState: ConnectionState) {
    guard newState != state else { return }
    state = newState
    subscribers.yield(newState)
  }

  // MARK: - Lifecycle

  func start() {
    guard !isRunning, state != .signedOut else { return }
    isRunning = true
    generation += 1
    let generation = generation
    loop = context.spawn { await self.run(generation) }
  }

  /// Closes the socket and stops reconnecting; returns when that loop has ended. A `start()`
  /// while this waits begins a new loop, which this leaves alone.
  func stop() async {
    isRunning = false
    generation += 1
    let loop = loop
    let socket = socket
    self.loop = nil
    pause.end()
    await outgoing.set(nil)
    // A connect in progress (up to its timeout) is cancelled rather than waited for.
    loop?.cancel()
    await socket?.close()
    await loop?.value
    if !isRunning, state != .signedOut { set(.idle) }
  }

  /// The session ended: close for good.
  func signedOut() async {
    isRunning = false
    generation += 1
    pause.end()
    loop?.cancel()
    await outgoing.set(nil)
    await socket?.close()
    set(.signedOut)
  }

  /// Ends every state subscription (the engine is closing).
  func finishSubscriptions() {
    subscribers.finish()
  }

  /// The network is back: skip the rest of a backoff.
  func networkReturned() {
    pause.end()
  }

  // MARK: - The loop

  /// A connection that lasted this long was healthy: the next drop starts the backoff afresh.
  static let healthyConnection: Duration = .seconds(10)
  /// Failed upgrades in a row, with HTTP working, before updates come by long poll.
  static let failedUpgradesBeforePolling = 3
  /// While polling, the socket is tried again this often.
  static let socketRetryWhilePolling: Duration = .seconds(180)
  /// How long one long poll may be held (API.md: 1–60 s).
  static let longPollWait: Duration = .seconds(25)

  private func isCurrent(_ generation: Int) -> Bool {
    isRunning && self.generation == generation && !Task.isCancelled
  }

  private func run(_ generation: Int) async {
    pause.reset()
    var refreshedFor: String?
    while isCurrent(generation) {
      if mode == .longPollOnly || failedUpgrades >= Self.failedUpgradesBeforePolling {
        await poll(generation)
        continue
      }
      set(pause.failures == 0 ? .connecting : .waitingForNetwork)
      let token: String
      do {
        token = try await session.accessToken()
      } catch {
        await signedOut()
        return
      }
      let opened: any LiveSocket
      do {
        opened = try await transport.connect(headers: ["Authorization": "Bearer \(token)"])
      } catch .rejected(status: 401) {
        guard refreshedFor != token else {
          // Refused again with a token refreshed for this very purpose: the session is over.
          await session.signOut()
          await signedOut()
          return
        }
        do {
          refreshedFor = try await session.refresh(after: token)
          continue
        } catch .signedOut {
          await signedOut()
          return
        } catch {
          // The refresh failed for a passing reason: try again later, still signed in.
          await backOff(generation)
          continue
        }
      } catch {
        context.log.write(
          LogRecord(
            .info, "live.connect_failed",
            [("attempt", "\(pause.failures + 1)"), ("reason", "\(error)")]))
        // A refusal that is about load says nothing of the network.
        if error != .rejected(status: 429), error != .rejected(status: 503), await probeHTTP() {
          failedUpgrades += 1
          if failedUpgrades >= Self.failedUpgradesBeforePolling { continue }
        } else {
          failedUpgrades = 0
        }
        await backOff(generation)
        continue
      }
      failedUpgrades = 0
      // The token worked: once it expires (the server closes the socket then), a 401 for it
      // deserves a refresh again, not the end of the session.
      refreshedFor = nil
      guard isCurrent(generation) else {
        await opened.close()
        return
      }
      socket = opened
      await outgoing.set(opened)
      set(.connected)
      await context.metrics.recordConnected(reconnect: hasConnectedBefore)
      context.log.write(
        LogRecord(.info, "live.connected", [("reconnect", "\(hasConnectedBefore)")]))
      hasConnectedBefore = true
      let connectedAt = context.clock.uptime()
      let onConnected = onConnected
      context.spawn { await onConnected() }
      for await frame in opened.messages {
        await onFrame(frame)
      }
      // A newer loop may own `socket` by now: only the current one clears it.
      guard isCurrent(generation) else { return }
      socket = nil
      await outgoing.set(nil)
      context.log.write(LogRecord(.info, "live.disconnected"))
      // A socket that drops at once (a server that accepts and closes) backs off further each
      // time; one that lived a while starts over.
      let lived = context.clock.uptime() - connectedAt
      if lived >= Self.healthyConnection { pause.reset() }
      set(.waitingForNetwork)
      await backOff(generation)
    }
  }

  /// Updates by long poll until the socket is due another try (never with `longPollOnly`) or
  /// the loop is stopped. Entering runs the connect's catch-up first, as a connect does.
  private func poll(_ generation: Int) async {
    set(.polling)
    context.log.write(LogRecord(.info, "live.long_polling", [("mode", "\(mode)")]))
    pause.reset()
    let onConnected = onConnected
    context.spawn { await onConnected() }
    let retrySocket = context.clock.uptime() + Self.socketRetryWhilePolling
    while isCurrent(generation),
      mode == .longPollOnly || context.clock.uptime() < retrySocket
    {
      // A stop must not wait out a held poll: it stops waiting, and the poll's reply, if any,
      // is still saved.
      let round = context.executor.spawn { [longPoll] in await longPoll() }
      let asked = context.clock.uptime()
      guard
        let outcome = await value(
          of: round, until: nil, clock: context.clock, on: context.executor)
      else { return }
      switch outcome {
      case .changed:
        pause.reset()
        set(.polling)
      case .unchanged where context.clock.uptime() - asked < Self.longPollWait / 5:
        // Answered early with nothing (a server stopping, a proxy that drops `wait`): not a
        // reason to ask again at once, which would spin.
        set(.polling)
        await backOff(generation)
      case .unchanged:
        pause.reset()
        set(.polling)
      case .failed:
        set(.waitingForNetwork)
        await backOff(generation)
      }
    }
    // The socket's turn again: one more failed upgrade brings the polls back.
    if mode != .longPollOnly { failedUpgrades = Self.failedUpgradesBeforePolling - 1 }
  }

  private func backOff(_ generation: Int) async {
    guard isCurrent(generation) else { return }
    await pause.wait()
  }
}

/// What one long poll brought.
enum LongPollOutcome: Sendable, Equatable {
  /// Conversations changed (saved, and their catch-up started).
  case changed
  /// Nothing changed for this user.
  case unchanged
  /// The request failed.
  case failed
}
