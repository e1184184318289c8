/// Hands each value to every current subscriber's stream, and finishes them all when the owner
/// closes. Confined to the actor that owns it; `onCancel` must hop back onto that actor to call
/// `remove(_:)`.
final class Broadcaster<Value: Sendable> {
  private var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
  private var nextID = 0
  private let buffering: AsyncStream<Value>.Continuation.BufferingPolicy

  /// - Parameter buffering: what a slow subscriber keeps (`.bufferingNewest(1)` for a state,
  ///   `.unbounded` for events that must all arrive).
  init(buffering: AsyncStream<Value>.Continuation.BufferingPolicy) {
    self.buffering = buffering
  }

  /// A new stream, starting with `initial` if given. `onCancel` is called with its ID when the
  /// reader stops reading.
  func subscribe(initial: Value? = nil, onCancel: @escaping @Sendable (Int) -> Void)
    -> AsyncStream<Value>
  {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: buffering)
    let id = nextID
    nextID += 1
    subscribers[id] = continuation
    if let initial { continuation.yield(initial) }
    continuation.onTermination = { termination in
      if case .cancelled = termination { onCancel(id) }
    }
    return stream
  }

  func remove(_ id: Int) {
    subscribers[id] = nil
  }

  /// Sends `value` to every subscriber, oldest subscription first.
  func yield(_ value: Value) {
    for id in subscribers.keys.sorted() { subscribers[id]?.yield(value) }
  }

  /// Ends every stream.
  func finish() {
    for id in subscribers.keys.sorted() { subscribers[id]?.finish() }
    subscribers.removeAll()
  }

  var isEmpty: Bool { subscribers.isEmpty }
}
