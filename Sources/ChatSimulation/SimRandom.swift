import ChatDomain
import Support

/// SplitMix64 with the helpers the simulation draws from. One seed makes every stream: each
/// part of the world (the scheduler, the workload, the faults, each device's engine, the
/// server) gets a stream of its own, so adding a draw in one part does not move the others.
struct SimRandom: RandomNumberGenerator, Sendable {
  private var generator: SplitMix64

  init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  /// An independent stream for `label`, derived from `seed`.
  init(seed: UInt64, stream label: String) {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in label.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    var mixer = SplitMix64(seed: seed ^ hash)
    generator = SplitMix64(seed: mixer.next())
  }

  mutating func next() -> UInt64 { generator.next() }

  /// A value in `0..<bound`.
  mutating func below(_ bound: Int) -> Int {
    precondition(bound > 0)
    return Int(next() % UInt64(bound))
  }

  /// A value in `range`.
  mutating func int(in range: ClosedRange<Int>) -> Int {
    range.lowerBound + below(range.count)
  }

  /// True with probability `p`.
  mutating func chance(_ p: Double) -> Bool {
    guard p > 0 else { return false }
    return unit() < p
  }

  /// A uniform value in `0..<1`.
  mutating func unit() -> Double {
    Double(next() >> 11) / Double(1 << 53)
  }

  /// A duration in `range`, to the millisecond.
  mutating func duration(_ range: ClosedRange<Duration>) -> Duration {
    let low = range.lowerBound.milliseconds
    let high = range.upperBound.milliseconds
    return .milliseconds(low + Int64(below(Int(high - low) + 1)))
  }

  /// One element; the collection must not be empty.
  mutating func pick<C: RandomAccessCollection>(_ collection: C) -> C.Element {
    collection[collection.index(collection.startIndex, offsetBy: below(collection.count))]
  }
}
