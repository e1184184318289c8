import Dispatch
import Foundation
import Synchronization

/// Turns POSIX signals into awaitable events: the signals are ignored by the default handler
/// and delivered through dispatch sources instead.
final class SignalWatcher: @unchecked Sendable {
  // @unchecked: `sources` is written once in `init` and only kept alive afterwards (their
  // handlers run on their own queue); everything else is inside the `Mutex`.
  private let sources: [any DispatchSourceSignal]
  private let state = Mutex(State())

  private struct State {
    var pending: [Int32] = []
    var waiter: CheckedContinuation<Int32, Never>?
    var handler: (@Sendable (Int32) -> Void)?
  }

  init(signals: [Int32]) {
    let queue = DispatchQueue(label: "chat-server.signals")
    var sources: [any DispatchSourceSignal] = []
    for number in signals {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      sources.append(source)
    }
    self.sources = sources
    for (number, source) in zip(signals, sources) {
      source.setEventHandler { [weak self] in self?.deliver(number) }
      source.resume()
    }
  }

  private func deliver(_ number: Int32) {
    let action: (() -> Void)? = state.withLock { state in
      if let handler = state.handler { return { handler(number) } }
      if let waiter = state.waiter {
        state.waiter = nil
        return { waiter.resume(returning: number) }
      }
      state.pending.append(number)
      return nil
    }
    action?()
  }

  /// Waits for the next signal.
  func next() async -> Int32 {
    await withCheckedContinuation { continuation in
      let ready: Int32? = state.withLock { state in
        if !state.pending.isEmpty { return state.pending.removeFirst() }
        state.waiter = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// Calls `handler` for every later signal.
  func handleLaterSignals(_ handler: @escaping @Sendable (Int32) -> Void) {
    let pending: [Int32] = state.withLock { state in
      state.handler = handler
      defer { state.pending = [] }
      return state.pending
    }
    for number in pending { handler(number) }
  }
}
