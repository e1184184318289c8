import ChatDomain
import Foundation
import ImagePipeline

/// The demo's photo and document, made at run time in its data folder.
enum DemoMedia {
  /// A 1,800 × 1,200 PNG of a sunset over hills (the pipeline brings it to 1,600 px).
  static func sunset(in folder: String) throws(ChatError) -> String {
    let width = 1_800
    let height = 1_200
    // Hills: a wave; under it green, above it sky from orange to purple.
    let ridges = (0..<width).map {
      height * 2 / 3 + Int(60 * sin(Double($0) / 170)) + Int(30 * sin(Double($0) / 47))
    }
    var rgba = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let at = (y * width + x) * 4
        let ridge = ridges[x]
        if y > ridge {
          rgba[at] = 30
          rgba[at + 1] = UInt8(90 + (y - ridge) * 60 / max(1, height - ridge))
          rgba[at + 2] = 40
        } else {
          let t = y * 255 / max(1, ridge)
          rgba[at] = UInt8(255 - t / 3)
          rgba[at + 1] = UInt8(max(0, 150 - t / 2))
          rgba[at + 2] = UInt8(80 + t / 2)
        }
      }
    }
    do {
      return try write(
        ImagePipeline.encodePNG(rgba: rgba, width: width, height: height),
        to: folder + "/sunset.png")
    } catch {
      throw .invalidInput("the demo's photo: \(error)")
    }
  }

  /// A one-page PDF with the hike's route.
  static func route(in folder: String) throws(ChatError) -> String {
    let text = "Sunday hike: trailhead 9:30, ridge by noon, back by four."
    let stream = "BT /F1 18 Tf 72 720 Td (\(text)) Tj ET"
    let objects = [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        + "/Resources << /Font << /F1 5 0 R >> >> >>",
      "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    var pdf = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
      offsets.append(pdf.utf8.count)
      pdf += "\(index + 1) 0 obj\n\(object)\nendobj\n"
    }
    let table = pdf.utf8.count
    pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets {
      let digits = String(offset)
      pdf += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
    }
    pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
    do {
      return try write(Array(pdf.utf8), to: folder + "/route.pdf")
    } catch {
      throw .invalidInput("the demo's document: \(error)")
    }
  }

  private static func write(_ bytes: [UInt8], to path: String) throws -> String {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }
}
