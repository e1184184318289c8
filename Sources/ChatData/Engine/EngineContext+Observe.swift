import ChatDomain

extension EngineContext {
  /// A stream of `query`'s answer: now, and again after every committed change `relevant`
  /// accepts, skipping answers equal to the last. Only the newest answer is kept for a slow
  /// reader. Cancelling the reader ends the observation.
  func observe<Value: Sendable & Equatable>(
    relevant: @escaping @Sendable (StoreChange) -> Bool,
    query: @escaping @Sendable () async -> Value?
  ) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: .bufferingNewest(1))
    let store = store
    let task = spawn {
      let changes = await store.changes()
      var last = await query()
      if let last { continuation.yield(last) }
      for await change in changes where relevant(change) {
        guard let value = await query(), value != last else { continue }
        last = value
        continuation.yield(value)
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}
