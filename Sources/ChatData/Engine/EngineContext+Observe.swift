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

extension EngineContext {
  /// A stream that reads `source` on the engine's executor and passes each value on, for a
  /// caller that needs a stream synchronously. Cancelling the reader ends the reading.
  func forward<Value: Sendable>(
    bufferingNewest: Int = 1, _ source: @escaping @Sendable () async -> AsyncStream<Value>
  ) -> AsyncStream<Value> {
    forward(bufferingNewest: bufferingNewest, source, transform: { $0 })
  }

  /// `forward` with each value transformed on the way.
  func forward<Source: Sendable, Value: Sendable>(
    bufferingNewest: Int = 1, _ source: @escaping @Sendable () async -> AsyncStream<Source>,
    transform: @escaping @Sendable (Source) -> Value
  ) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: .bufferingNewest(bufferingNewest))
    let task = spawn {
      for await value in await source() { continuation.yield(transform(value)) }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}
