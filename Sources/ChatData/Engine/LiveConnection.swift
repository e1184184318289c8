import ChatDomain
import Foundation
import SQLite

/// The one socket (`/v1/live`), shared by the source repositories: it connects, reconnects with
/// backoff and jitter, and hands each frame, in order, to the engine's router.
///
/// The socket is best effort: after every connect, `onConnected` runs the catch-up before the
/// socket's events are trusted to be complete. A socket that looks open but is dead is found by
/// the transport's pings, which end `messages`. A 401 on the upgrade refreshes the token once and
/// reconnects; a refused refresh ends the session.
actor LiveConnection {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  private let transport: any LiveTransport
  private let session: SessionManager
  private let onFrame: @Sendable (String) async -> Void
  private let onConnected: @Sendable () async -> Void

  private var isRunning = false
  private var loop: Task<Void, Never>?
  private var socket: (any LiveSocket)?
  private var pause: Task<Void, Never>?
  private var hasConnectedBefore = false
  private var state: ConnectionState = .idle
  private var subscribers: [Int: AsyncStream<ConnectionState>.Continuation] = [:]
  private var nextSubscriber = 0

  init(
    context: EngineContext, transport: any LiveTransport, session: SessionManager,
    onFrame: @escaping @Sendable (String) async -> Void,
    onConnected: @escaping @Sendable () async -> Void
  ) {
    self.context = context
    self.transport = transport
    self.session = session
    self.onFrame = onFrame
    self.onConnected = onConnected
  }

  // MARK: - State

  /// The connection's state now and on every change.
  func states() -> AsyncStream<ConnectionState> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: ConnectionState.self, bufferingPolicy: .bufferingNewest(1))
    let id = nextSubscriber
    nextSubscriber += 1
    subscribers[id] = continuation
    continuation.yield(state)
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      self.context.spawn { await self.unsubscribe(id) }
    }
    return stream
  }

  /// `states()` for a caller that cannot wait (a protocol's synchronous requirement).
  nonisolated func stateStream() -> AsyncStream<ConnectionState> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: ConnectionState.self, bufferingPolicy: .bufferingNewest(1))
    let task = context.spawn {
      for await state in await self.states() { continuation.yield(state) }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  private func unsubscribe(_ id: Int) {
    subscribers[id] = nil
  }

  var currentState: ConnectionState { state }

  private func set(_ newState: ConnectionState) {
    guard newState != state else { return }
    state = newState
    for (_, subscriber) in subscribers.sorted(by: { $0.key < $1.key }) {
      subscriber.yield(newState)
    }
  }

  // MARK: - Lifecycle

  func start() {
    guard !isRunning, state != .signedOut else { return }
    isRunning = true
    loop = context.spawn { await self.run() }
  }

  /// Closes the socket and stops reconnecting; returns when the loop has ended.
  func stop() async {
    isRunning = false
    pause?.cancel()
    await socket?.close()
    // A connect in progress (up to its timeout) is cancelled rather than waited for.
    loop?.cancel()
    await loop?.value
    loop = nil
    if state != .signedOut { set(.idle) }
  }

  /// The session ended: close for good.
  func signedOut() async {
    isRunning = false
    pause?.cancel()
    await socket?.close()
    set(.signedOut)
  }

  /// The network is back: skip the rest of a backoff.
  func networkReturned() {
    pause?.cancel()
  }

  /// Sends one frame; false when there is no open socket.
  func send(_ text: String) async -> Bool {
    guard let socket else { return false }
    do {
      try await socket.send(text)
      return true
    } catch {
      return false
    }
  }

  // MARK: - The loop

  private func run() async {
    var attempts = 0
    var refreshed = false
    while isRunning {
      set(attempts == 0 ? .connecting : .waitingForNetwork)
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
      } catch .rejected(status: 401) where !refreshed {
        refreshed = true
        do {
          _ = try await session.refresh(after: token)
          continue
        } catch .signedOut {
          await signedOut()
          return
        } catch {
          attempts += 1
          await backOff(attempts)
          continue
        }
      } catch .rejected(status: 401) {
        await session.signOut()
        await signedOut()
        return
      } catch {
        attempts += 1
        context.log.write(
          LogRecord(
            .info, "live.connect_failed", [("attempt", "\(attempts)"), ("reason", "\(error)")]))
        await backOff(attempts)
        continue
      }
      guard isRunning else {
        await opened.close()
        return
      }
      socket = opened
      attempts = 0
      refreshed = false
      set(.connected)
      await context.metrics.recordConnected(reconnect: hasConnectedBefore)
      context.log.write(
        LogRecord(.info, "live.connected", [("reconnect", "\(hasConnectedBefore)")]))
      hasConnectedBefore = true
      let onConnected = onConnected
      context.spawn { await onConnected() }
      for await frame in opened.messages {
        await onFrame(frame)
      }
      socket = nil
      guard isRunning else { return }
      context.log.write(LogRecord(.info, "live.disconnected"))
      attempts = 1
      set(.waitingForNetwork)
      await backOff(attempts)
    }
  }

  private func backOff(_ attempt: Int) async {
    guard isRunning else { return }
    let delay = context.backoff.delay(attempt: attempt, random: context.random)
    let clock = context.clock
    let pause = context.spawn { try? await clock.sleep(for: delay) }
    self.pause = pause
    await pause.value
    self.pause = nil
  }
}
