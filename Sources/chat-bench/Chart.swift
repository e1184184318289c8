import Foundation

/// The latency distributions of B4 and B5 as one SVG: latency (log scale) against percentile
/// on a "nines" scale (50, 90, 99, 99.9), so the tail is as visible as the median. The targets
/// are drawn as hollow markers at their percentiles.
enum Chart {
  struct Series {
    var name: String
    var color: String
    var samples: Samples
    /// (percentile, milliseconds) the target allows.
    var targets: [(Double, Double)]
  }

  static func write(_ series: [Series], title: String, to path: String) throws {
    try svg(series, title: title).write(toFile: path, atomically: true, encoding: .utf8)
  }

  static func svg(_ series: [Series], title: String) -> String {
    let width = 760.0
    let height = 500.0
    let left = 70.0
    let right = 20.0
    let top = 50.0
    let bottom = 120.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let maxNines = 3.0
    let values = series.flatMap { $0.samples.values }.map { Double($0) / 1e6 }
    let targetValues = series.flatMap { $0.targets.map(\.1) }
    let low = max(0.01, pow(10, floor(log10(max(0.01, (values.min() ?? 0.1))))))
    let high = pow(10, ceil(log10(max(values.max() ?? 10, targetValues.max() ?? 10))))
    func x(_ percentile: Double) -> Double {
      let nines = percentile >= 1 ? maxNines : min(maxNines, -log10(1 - percentile))
      return left + nines / maxNines * plotWidth
    }
    func y(_ milliseconds: Double) -> Double {
      let clamped = min(max(milliseconds, low), high)
      return top + plotHeight * (1 - (log10(clamped) - log10(low)) / (log10(high) - log10(low)))
    }
    var out = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>
      <text x="\(Int(width / 2))" y="24" text-anchor="middle" font-size="15">\(escape(title))</text>

      """
    // Grid: percentiles.
    for (percentile, label) in [
      (0.0, "0"), (0.5, "50"), (0.9, "90"), (0.99, "99"), (0.999, "99.9"),
    ] {
      let position = x(percentile)
      out += line(position, top, position, top + plotHeight, "#ddd")
      out += text(position, top + plotHeight + 18, label, anchor: "middle")
    }
    out += text(left + plotWidth / 2, top + plotHeight + 36, "percentile", anchor: "middle")
    // Grid: latency, 1-2-5 steps.
    var tick = low
    while tick <= high * 1.0001 {
      for step in [1.0, 2.0, 5.0] where tick * step <= high * 1.0001 {
        let value = tick * step
        out += line(left, y(value), left + plotWidth, y(value), step == 1 ? "#ccc" : "#eee")
        out += text(left - 6, y(value) + 4, format(value), anchor: "end")
      }
      tick *= 10
    }
    out += """
      <text x="18" y="\(Int(top + plotHeight / 2))" text-anchor="middle" \
      transform="rotate(-90 18 \(Int(top + plotHeight / 2)))">latency (ms, log scale)</text>

      """
    // Series.
    for (index, item) in series.enumerated() {
      let sorted = item.samples.sorted
      guard !sorted.isEmpty else { continue }
      var points: [String] = []
      let steps = 400
      for step in 0...steps {
        let nines = Double(step) / Double(steps) * maxNines
        let percentile = 1 - pow(10, -nines)
        let rank = min(
          sorted.count - 1, max(0, Int((percentile * Double(sorted.count)).rounded(.up)) - 1))
        points.append(String(format: "%.1f,%.1f", x(percentile), y(Double(sorted[rank]) / 1e6)))
      }
      out += """
        <polyline fill="none" stroke="\(item.color)" stroke-width="2" points="\(points.joined(separator: " "))"/>

        """
      for (percentile, limit) in item.targets {
        out += String(
          format:
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" stroke=\"%@\" stroke-width=\"2\"/>\n",
          x(percentile), y(limit), item.color)
      }
      let legendY = top + plotHeight + 62 + Double(index) * 18
      out += line(left + 12, legendY - 4, left + 36, legendY - 4, item.color, width: 2)
      let summary = String(
        format: "%@: p50 %.2f ms, p99 %.2f ms, n = %d", item.name,
        Double(item.samples.median) / 1e6, Double(item.samples.p99) / 1e6, item.samples.count)
      out += text(left + 42, legendY, summary, anchor: "start")
    }
    out += "</svg>\n"
    return out
  }

  private static func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String, width: Double = 1
  ) -> String {
    String(
      format:
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%@\" stroke-width=\"%.0f\"/>\n",
      x1, y1, x2, y2, color, width)
  }

  private static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
    String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%@\">", x, y, anchor)
      + escape(content) + "</text>\n"
  }

  private static func format(_ value: Double) -> String {
    value >= 1 ? String(format: "%.0f", value) : String(format: "%g", value)
  }

  private static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
  }
}
