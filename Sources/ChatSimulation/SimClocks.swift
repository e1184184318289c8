import ChatData
import ChatServer
import Foundation
import Support

/// A clock of the world: the world's time in milliseconds, with the wall clock set `offset`
/// wrong (hours, on some phones; zero for the server). `sleep` is a world timer; cancelling the
/// sleeping task wakes it with `CancellationError`.
struct SimClock: TimeSource {
  let world: World
  let offset: Duration

  func now() -> Timestamp {
    Timestamp(millisecondsSince1970: World.epoch.millisecondsSince1970)
      + .milliseconds((world.now + offset).milliseconds)
  }

  func uptime() -> Duration { world.now }

  func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    guard duration > .zero else { return }
    let sleeper = Sleeper()
    let idle = IdleWait.isActive
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        sleeper.start(continuation, world: world, after: duration, idle: idle)
      }
    } onCancel: {
      sleeper.cancel(world: world)
    }
  }
}

/// One sleep: resumed once, by its timer or by cancellation, whichever comes first.
private final class Sleeper: @unchecked Sendable {
  // @unchecked: touched only on the world's thread (jobs, timers and cancellation run there).
  private var continuation: CheckedContinuation<Void, any Error>?
  private var timer: Int?
  private var cancelled = false

  func start(
    _ continuation: CheckedContinuation<Void, any Error>, world: World, after: Duration,
    idle: Bool
  ) {
    if cancelled {
      continuation.resume(throwing: CancellationError())
      return
    }
    self.continuation = continuation
    timer = world.schedule(after: after, idle: idle) { [self] in
      self.timer = nil
      self.finish(nil)
    }
  }

  func cancel(world: World) {
    cancelled = true
    if let timer { world.cancel(timer) }
    timer = nil
    finish(CancellationError())
  }

  private func finish(_ error: (any Error)?) {
    guard let continuation else { return }
    self.continuation = nil
    if let error {
      continuation.resume(throwing: error)
    } else {
      continuation.resume()
    }
  }
}
