import ImagePipeline
import Synchronization

/// A photo's thumbnail drawn in a terminal: each cell is an upper half block (`▀`) whose
/// foreground is one pixel and background the pixel below it, in 24-bit colour, so a cell
/// shows two pixels. Decoded thumbnails are kept (a frame is drawn on every change).
enum HalfBlockImage {
  /// The lines of `jpeg` at most `columns` cells wide (and `maxRows` high), its aspect kept;
  /// nil when it cannot be decoded (the bubble then shows its label alone).
  static func lines(_ jpeg: [UInt8], columns: Int, maxRows: Int = 8) -> [StyledLine]? {
    guard columns > 0, maxRows > 0, let image = decoded(jpeg) else { return nil }
    // A cell is about twice as high as wide, and holds two pixels one above the other.
    var width = min(columns, image.width)
    var height = max(1, image.height * width / max(image.width, 1))
    if height > maxRows * 2 {
      height = maxRows * 2
      width = max(1, image.width * height / max(image.height, 1))
    }
    var lines: [StyledLine] = []
    for row in stride(from: 0, to: height, by: 2) {
      var line = StyledLine()
      for column in 0..<width {
        let top = pixel(image, column, row, width, height)
        let bottom = pixel(image, column, min(row + 1, height - 1), width, height)
        line.append(
          "▀",
          style:
            "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m"
        )
      }
      lines.append(line)
    }
    return lines
  }

  /// The pixel of `image` at (`x`, `y`) of a `width` × `height` grid laid over it (nearest).
  private static func pixel(_ image: RGBImage, _ x: Int, _ y: Int, _ width: Int, _ height: Int)
    -> (UInt8, UInt8, UInt8)
  {
    let sourceX = min(image.width - 1, x * image.width / width)
    let sourceY = min(image.height - 1, y * image.height / height)
    let at = (sourceY * image.width + sourceX) * 3
    return (image.pixels[at], image.pixels[at + 1], image.pixels[at + 2])
  }

  private static let cache = Mutex<[[UInt8]: RGBImage]>([:])

  private static func decoded(_ jpeg: [UInt8]) -> RGBImage? {
    if let image = cache.withLock({ $0[jpeg] }) { return image }
    var limits = ImageLimits()
    limits.maxSide = 1_024
    limits.maxPixels = 1_024 * 1_024
    guard let image = try? ImagePipeline.decode(jpeg, limits: limits) else { return nil }
    cache.withLock { cache in
      if cache.count > 64 { cache.removeAll() }
      cache[jpeg] = image
    }
    return image
  }
}
