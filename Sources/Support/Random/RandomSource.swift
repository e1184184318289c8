/// The seam to randomness (backoff jitter, ids, the simulation's choices). Injected, so a seed
/// replays a run.
public protocol RandomSource: Sendable {
  func next() -> UInt64
}

extension RandomSource {
  /// A uniform value in `0..<1`.
  public func unit() -> Double {
    Double(next() >> 11) / Double(1 << 53)
  }
}

/// The operating system's generator.
public struct SystemRandomSource: RandomSource {
  public init() {}

  public func next() -> UInt64 {
    var generator = SystemRandomNumberGenerator()
    return generator.next()
  }
}

/// `SplitMix64` shared by reference: the same seed gives the same numbers on every machine.
/// Also a `RandomNumberGenerator`, for code that takes one.
public final class SeededRandomSource: RandomSource, RandomNumberGenerator, Sendable {
  private let generator: Locked<SplitMix64>

  public init(seed: UInt64) { generator = Locked(SplitMix64(seed: seed)) }

  public func next() -> UInt64 {
    generator.withLock { $0.next() }
  }
}
