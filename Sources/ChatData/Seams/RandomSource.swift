import ChatDomain
import Foundation

/// The seam to randomness (backoff jitter, message IDs). Injected, so a seed replays a run.
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
/// Also a `RandomNumberGenerator`, for code that takes one (the server).
public final class SeededRandomSource: RandomSource, RandomNumberGenerator, @unchecked Sendable {
  // @unchecked: `generator` is only touched while holding `lock`.
  private let lock = NSLock()
  private var generator: SplitMix64

  public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  public func next() -> UInt64 {
    lock.withLock { generator.next() }
  }
}
