import Support

/// The service's one source of randomness, shared by reference with the parts that draw from
/// it (the push dispatcher's backoff jitter), so a seed gives one stream in one order: every
/// part runs on the service's executor, and the lock only makes the sharing safe.
final class SharedRandom: RandomNumberGenerator, Sendable {
  private let generator: Locked<any RandomNumberGenerator & Sendable>

  init(_ generator: some RandomNumberGenerator & Sendable) {
    self.generator = Locked(generator)
  }

  func next() -> UInt64 {
    generator.withLock { $0.next() }
  }
}
