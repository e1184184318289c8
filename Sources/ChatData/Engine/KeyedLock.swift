/// Mutual exclusion per key, for work on one actor that suspends (a catch-up, a post): the
/// actor itself lets another call in at every `await`, this does not.
///
/// Confined to the actor that owns it; waiters are served first come, first served.
final class KeyedLock<Key: Hashable> {
  private var held: Set<Key> = []
  private var waiters: [Key: [CheckedContinuation<Void, Never>]] = [:]

  /// Runs `body` once no other holder of `key` is running.
  func withLock<T, Failure: Error>(
    _ key: Key, _ body: () async throws(Failure) -> T
  ) async throws(Failure) -> T {
    if held.contains(key) {
      await withCheckedContinuation { waiters[key, default: []].append($0) }
    } else {
      held.insert(key)
    }
    defer { release(key) }
    return try await body()
  }

  private func release(_ key: Key) {
    if var queue = waiters[key], !queue.isEmpty {
      // Ownership passes straight to the next waiter.
      let next = queue.removeFirst()
      waiters[key] = queue.isEmpty ? nil : queue
      next.resume()
    } else {
      held.remove(key)
    }
  }
}
