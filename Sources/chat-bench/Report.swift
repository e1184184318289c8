import Foundation

/// One line of the table: a figure, or one part of it (B2 has the store query, the warm view
/// state and the fresh process).
struct ResultRow: Codable, Sendable {
  enum Unit: String, Codable, Sendable {
    case microseconds = "µs"
    case milliseconds = "ms"
    case perSecond = "/s"
    case kibibytes = "KiB"
    case megabytes = "MB"
  }

  /// "B1" … "B10".
  var figure: String
  /// What is measured, e.g. "ingest, MessageStore (FTS)".
  var name: String
  /// The workload, in words, with the sample count.
  var workload: String
  var unit: Unit
  var median: Double?
  var p99: Double?
  var samples: Int
  /// What the baseline is, e.g. "raw C loop".
  var baselineName: String?
  /// The baseline's median, in `unit`.
  var baseline: Double?
  /// median / baseline.
  var ratio: Double?
  /// The target, in words ("≥ 0.8× raw, ≥ 50,000/s"); empty for a baseline's own row.
  var target: String
  /// Whether the target is met; nil when there is no target or it was not measured.
  var met: Bool?
  /// Anything a reader needs to read the numbers right.
  var note: String?
  /// Figures that add to the row: other percentiles, CPU shares, byte counts.
  var details: [String: Double] = [:]
}

/// Latency in the unit a table shows it in.
extension ResultRow {
  static func latency(
    _ figure: String, _ name: String, workload: String, samples: Samples,
    unit: Unit = .milliseconds, baselineName: String? = nil, baseline: Samples? = nil,
    target: String, met: (Double, Double) -> Bool? = { _, _ in nil }, note: String? = nil
  ) -> ResultRow {
    let scale = unit == .microseconds ? 1e3 : 1e6
    let median = Double(samples.median) / scale
    let p99 = Double(samples.p99) / scale
    let baselineMedian = baseline.map { Double($0.median) / scale }
    var row = ResultRow(
      figure: figure, name: name, workload: workload, unit: unit, median: median, p99: p99,
      samples: samples.count, baselineName: baselineName, baseline: baselineMedian,
      ratio: baselineMedian.flatMap { $0 > 0 ? median / $0 : nil }, target: target,
      met: samples.count > 0 ? met(median, p99) : nil, note: note)
    row.details["p90"] = Double(samples.percentile(0.9)) / scale
    row.details["p999"] = Double(samples.percentile(0.999)) / scale
    row.details["max"] = Double(samples.max) / scale
    row.details["min"] = Double(samples.min) / scale
    if let baseline {
      row.details["baselineP99"] = Double(baseline.p99) / scale
    }
    return row
  }
}

/// Everything one run measured, as written by `--json`.
struct Report: Codable, Sendable {
  var tool = "chat-bench"
  var mode: String
  var startedAt: String
  var durationSeconds: Double = 0
  var machine: MachineDescription
  var rows: [ResultRow] = []
  /// Figures that were not measured, and why.
  var skipped: [String] = []
  /// How each load generator was checked not to be the bottleneck, and other notes.
  var notes: [String] = []
  /// Figures that failed or ran out of time, and why: the others' results stand.
  var failed: [String] = []
  /// False while the run goes on: the JSON is written as each figure ends.
  var complete = false

  /// The table: figure, workload, median, p99, baseline, ratio, target.
  func table() -> String {
    var lines: [[String]] = [
      ["#", "figure", "workload", "median", "p99", "baseline", "ratio", "target", ""]
    ]
    for row in rows {
      let baseline =
        row.baseline.map { "\(row.baselineName ?? "baseline") \(Self.format($0, row.unit))" }
        ?? (row.baselineName ?? "—")
      lines.append([
        row.figure, row.name, row.workload, row.median.map { Self.format($0, row.unit) } ?? "—",
        row.p99.map { Self.format($0, row.unit) } ?? "—", baseline,
        row.ratio.map { String(format: "%.2f×", $0) } ?? "—", row.target.isEmpty ? "—" : row.target,
        row.met.map { $0 ? "met" : "MISSED" } ?? "",
      ])
    }
    var widths = [Int](repeating: 0, count: lines[0].count)
    for line in lines {
      for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    var output = ""
    for (number, line) in lines.enumerated() {
      output +=
        line.enumerated().map { index, cell in
          cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ") + "\n"
      if number == 0 {
        output += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
      }
    }
    return output
  }

  static func format(_ value: Double, _ unit: ResultRow.Unit) -> String {
    switch unit {
    case .microseconds:
      return value < 10 ? String(format: "%.2f µs", value) : String(format: "%.1f µs", value)
    case .milliseconds:
      return value < 1 ? String(format: "%.3f ms", value) : String(format: "%.2f ms", value)
    case .perSecond:
      return Self.grouped(Int(value.rounded())) + "/s"
    case .kibibytes:
      return String(format: "%.2f KiB", value)
    case .megabytes:
      return String(format: "%.1f MB", value)
    }
  }

  /// 65000 → "65,000".
  static func grouped(_ value: Int) -> String {
    let digits = String(abs(value))
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
      result.append(digit)
    }
    return value < 0 ? "-" + result : result
  }

  func write(json path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(self).write(to: URL(fileURLWithPath: path))
  }
}

/// Progress lines on standard error, so standard output stays the table.
func progress(_ text: String) {
  FileHandle.standardError.write(Data(("  " + text + "\n").utf8))
}
