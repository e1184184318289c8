#if canImport(Darwin)
  import os
#else
  import Synchronization
#endif

/// State behind a lock, shared between threads: the one lock the client modules use.
///
/// `Mutex` (Synchronization) where the platform has it unconditionally; on Apple platforms it
/// needs iOS 18 / macOS 15, and the client supports iOS 17 / macOS 14, so there the same thing
/// is `OSAllocatedUnfairLock`. Modules that only ever run on Linux (the server, `Wire`, the
/// tools) use `Mutex` directly.
public final class Locked<State: Sendable>: Sendable {
  #if canImport(Darwin)
    private let lock: OSAllocatedUnfairLock<State>
  #else
    private let lock: Mutex<State>
  #endif

  public init(_ state: State) {
    #if canImport(Darwin)
      lock = OSAllocatedUnfairLock(initialState: state)
    #else
      lock = Mutex(state)
    #endif
  }

  /// Runs `body` with the state, no other thread touching it meanwhile. Keep `body` short and
  /// never suspend or call out to unknown code inside it.
  public func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows
    -> Result
  {
    try lock.withLock { try body(&$0) }
  }

  /// The state now (a copy).
  public var value: State {
    withLock { $0 }
  }
}
