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

/// SplitMix64: the same seed gives the same numbers on every machine. Also a
/// `RandomNumberGenerator`, for code that takes one (the server).
public final class SeededRandomSource: RandomSource, RandomNumberGenerator, @unchecked Sendable {
  // @unchecked: `state` is only touched while holding `lock`.
  private let lock = NSLock()
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public func next() -> UInt64 {
    lock.withLock {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
}
