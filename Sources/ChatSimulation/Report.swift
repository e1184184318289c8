import Foundation

extension SeedResult {
  /// What a failed seed prints: the seed, each broken invariant, the trace lines that show the
  /// first one, and the command that replays it.
  public var failureReport: String {
    var lines = ["seed \(seed) FAILED (profile \(profile.rawValue), trace \(hashText))"]
    for violation in violations {
      lines.append("  \(violation)")
    }
    if !excerpt.isEmpty {
      lines.append("  trace (the lines that mention the first violation):")
      lines += excerpt.map { "    " + $0 }
    }
    lines.append("  replay: \(replayCommand)")
    return lines.joined(separator: "\n")
  }

  /// The trace hash as 16 hex digits.
  public var hashText: String {
    let hex = String(traceHash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}

/// Totals over many seeds.
public struct RunSummary: Sendable {
  public let seeds: Int
  public let failed: [SeedResult]
  public let wallTime: Duration
  public let simulatedTime: Duration
  public let faults: [FaultKind: Int]
  public let steps: Int
  public let sends: Int
  public let mediaSends: Int
  public let downloads: Int
  public let partThree: PartThreeCounts
  public let retention: (pruned: Int, searched: Int, found: Int)
  public let stale: (held: Int, sentNow: Int, discarded: Int)

  public init(results: [SeedResult], wallTime: Duration) {
    seeds = results.count
    failed = results.filter { !$0.passed }
    self.wallTime = wallTime
    simulatedTime = results.reduce(.zero) { $0 + $1.simulatedTime }
    var faults: [FaultKind: Int] = [:]
    for result in results {
      for (kind, count) in result.faults { faults[kind, default: 0] += count }
    }
    self.faults = faults
    steps = results.reduce(0) { $0 + $1.steps }
    sends = results.reduce(0) { $0 + $1.sends }
    mediaSends = results.reduce(0) { $0 + $1.media.sends }
    downloads = results.reduce(0) { $0 + $1.media.downloads }
    partThree = results.reduce(PartThreeCounts()) { $0 + $1.partThree }
    retention = results.reduce((0, 0, 0)) {
      ($0.0 + $1.retention.pruned, $0.1 + $1.retention.searched, $0.2 + $1.retention.found)
    }
    stale = results.reduce((0, 0, 0)) {
      ($0.0 + $1.stale.held, $0.1 + $1.stale.sentNow, $0.2 + $1.stale.discarded)
    }
  }

  public var violations: Int { failed.reduce(0) { $0 + $1.violations.count } }

  public var text: String {
    let seconds = Double(wallTime.milliseconds) / 1000
    let hours = Double(simulatedTime.milliseconds) / 3_600_000
    var lines = [
      "seeds:            \(seeds) (\(String(format: "%.1f", Double(seeds) / max(seconds, 0.001))) per second, \(String(format: "%.1f", seconds)) s)",
      "simulated time:   \(String(format: "%.1f", hours)) hours",
      "sends:            \(sends) (\(mediaSends) with a photo or document; \(downloads) downloads checked)",
      "scheduler steps:  \(steps)",
    ]
    if partThree.reactions + partThree.replies > 0 {
      lines.append(
        "part three:       \(partThree.reactions) reactions asked for, \(partThree.replies) replies, "
          + "\(partThree.mentions) messages naming a member, \(partThree.pins) pins or unpins, "
          + "\(partThree.drafts) drafts typed, \(partThree.blocks) blocks or unblocks, "
          + "\(partThree.forwards) forwards")
    }
    if retention.pruned > 0 || retention.searched > 0 {
      lines.append(
        "pruned:           \(retention.pruned) items; at the end \(retention.searched) messages "
          + "below a history floor, \(retention.found) found by the server search")
    }
    if stale.held > 0 {
      lines.append(
        "stale sends:      \(stale.held) held; send now \(stale.sentNow), "
          + "discarded \(stale.discarded)")
    }
    lines.append("faults injected:")
    for kind in FaultKind.allCases {
      lines.append(
        "  " + kind.rawValue.padding(toLength: 36, withPad: " ", startingAt: 0)
          + String(faults[kind] ?? 0))
    }
    lines.append("invariant violations: \(violations) (in \(failed.count) seeds)")
    return lines.joined(separator: "\n")
  }
}
