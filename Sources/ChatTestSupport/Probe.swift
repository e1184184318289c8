import Foundation
import SQLite
import Support

/// Reads a stream on the world's executor and keeps what arrived, so that after
/// `TestWorld.settle()` a test reads the newest value without waiting on the stream itself.
public final class Probe<Value: Sendable>: @unchecked Sendable {
  // @unchecked: `values` and `finished` are touched only while holding `lock`.
  private let lock = NSLock()
  private var values: [Value] = []
  private var finished = false
  private var task: Task<Void, Never>?

  public init(_ stream: AsyncStream<Value>, on executor: any SerialTaskExecutor) {
    let task = executor.spawn {
      for await value in stream {
        self.lock.withLock { self.values.append(value) }
      }
      self.lock.withLock { self.finished = true }
    }
    lock.withLock { self.task = task }
  }

  /// The newest value, if any arrived.
  public var latest: Value? { lock.withLock { values.last } }

  /// Every value, in order.
  public var all: [Value] { lock.withLock { values } }

  public var isFinished: Bool { lock.withLock { finished } }

  /// Stops reading (the screen went away).
  public func cancel() {
    lock.withLock { task }?.cancel()
  }
}
