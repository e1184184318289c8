import Testing

@testable import ChatData
@testable import ChatSimulation

/// The checker can fail: each known bug, put back with its switch, is caught within a few seeds.
@Suite(.timeLimit(.minutes(10)))
struct KnownBugTests {
  /// The most seeds a bug may survive.
  static let bound: UInt64 = 20

  @Test(arguments: [
    (KnownBugs.retryWithNewID, "retryWithNewID"),
    (KnownBugs.orderByDeviceClock, "orderByDeviceClock"),
    (KnownBugs.skipCatchUpAfterReconnect, "skipCatchUpAfterReconnect"),
    (KnownBugs.stopOutboxAtFirst4xx, "stopOutboxAtFirst4xx"),
  ])
  func eachKnownBugIsCaughtWithinAFewSeeds(bug: KnownBugs, name: String) async throws {
    var options = SimulationOptions(profile: .quick, keepsTrace: false)
    options.knownBugs = bug
    var caught: SeedResult?
    for seed in 1...Self.bound {
      let result = await SimulationRunner.run(seed: seed, options: options)
      if !result.passed {
        caught = result
        break
      }
    }
    let result = try #require(caught, "\(name) survived \(Self.bound) seeds")
    print("\(name): caught by seed \(result.seed): \(result.violations[0])")
  }
}
