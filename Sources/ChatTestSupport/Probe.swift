import Foundation
import SQLite
import Support

/// Reads a stream on the world's executor and keeps what arrived, so that after
/// `TestWorld.settle()` a test reads the newest value without waiting on the stream itself.
public final class Probe<Value: Sendable>: Sendable {
  private struct State {
    var values: [Value] = []
    var finished = false
    var task: Task<Void, Never>?
  }

  private let state = Locked(State())

  public init(_ stream: AsyncStream<Value>, on executor: any SerialTaskExecutor) {
    let task = executor.spawn { [state] in
      for await value in stream {
        state.withLock { $0.values.append(value) }
      }
      state.withLock { $0.finished = true }
    }
    state.withLock { $0.task = task }
  }

  /// The newest value, if any arrived.
  public var latest: Value? { state.withLock { $0.values.last } }

  /// Every value, in order.
  public var all: [Value] { state.withLock { $0.values } }

  public var isFinished: Bool { state.withLock { $0.finished } }

  /// Stops reading (the screen went away).
  public func cancel() {
    state.withLock { $0.task }?.cancel()
  }
}
