/// EXIF's orientation (tag 0x0112): how the camera's pixels must be turned to stand upright.
public enum EXIFOrientation: Int, Sendable, CaseIterable {
  case up = 1
  case mirrored = 2
  case down = 3
  case downMirrored = 4
  case leftMirrored = 5
  case right = 6
  case rightMirrored = 7
  case left = 8

  /// The orientation a JPEG's EXIF gives (APP1 `Exif\0\0`, the TIFF IFD0's tag 0x0112), `.up`
  /// when it gives none or cannot be read. Reads only the bytes it needs; every offset is
  /// checked against the file, so a damaged EXIF is ignored, never a crash.
  public static func read(from jpeg: [UInt8]) -> EXIFOrientation {
    var position = 2  // after SOI
    while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
      let marker = jpeg[position + 1]
      // Start of scan or end of image: no APP1 before the pixels.
      if marker == 0xDA || marker == 0xD9 { return .up }
      let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
      guard length >= 2, position + 2 + length <= jpeg.count else { return .up }
      let body = (position + 4)..<(position + 2 + length)
      if marker == 0xE1, body.count >= 14,
        jpeg[body.lowerBound..<(body.lowerBound + 6)].elementsEqual(
          [0x45, 0x78, 0x69, 0x66, 0, 0])
      {
        return orientation(inTIFF: jpeg[(body.lowerBound + 6)..<body.upperBound]) ?? .up
      }
      position += 2 + length
    }
    return .up
  }

  private static func orientation(inTIFF tiff: ArraySlice<UInt8>) -> EXIFOrientation? {
    let base = tiff.startIndex
    guard tiff.count >= 8 else { return nil }
    let littleEndian: Bool
    switch (tiff[base], tiff[base + 1]) {
    case (0x49, 0x49): littleEndian = true
    case (0x4D, 0x4D): littleEndian = false
    default: return nil
    }
    func read(_ offset: Int, _ size: Int) -> Int? {
      guard offset >= 0, offset + size <= tiff.count else { return nil }
      var value = 0
      for index in 0..<size {
        let byte = Int(tiff[base + offset + (littleEndian ? size - 1 - index : index)])
        value = value << 8 | byte
      }
      return value
    }
    guard read(2, 2) == 42, let ifd = read(4, 4), let count = read(ifd, 2) else { return nil }
    for entry in 0..<min(count, 512) {
      let at = ifd + 2 + entry * 12
      guard let tag = read(at, 2) else { return nil }
      if tag == 0x0112 {
        // SHORT, count 1: the value sits in the entry's first two bytes.
        guard read(at + 2, 2) == 3, let value = read(at + 8, 2) else { return nil }
        return EXIFOrientation(rawValue: value)
      }
    }
    return nil
  }
}

extension RGBImage {
  /// The pixels turned upright for `orientation`.
  public func oriented(_ orientation: EXIFOrientation) -> RGBImage {
    guard orientation != .up else { return self }
    let swaps = [.leftMirrored, .right, .rightMirrored, .left].contains(orientation)
    let outWidth = swaps ? height : width
    let outHeight = swaps ? width : height
    var out = [UInt8](repeating: 0, count: pixels.count)
    for y in 0..<outHeight {
      for x in 0..<outWidth {
        // Where the upright pixel (x, y) comes from in the stored image.
        let (sx, sy): (Int, Int)
        switch orientation {
        case .up: (sx, sy) = (x, y)
        case .mirrored: (sx, sy) = (width - 1 - x, y)
        case .down: (sx, sy) = (width - 1 - x, height - 1 - y)
        case .downMirrored: (sx, sy) = (x, height - 1 - y)
        case .leftMirrored: (sx, sy) = (y, x)
        case .right: (sx, sy) = (y, height - 1 - x)
        case .rightMirrored: (sx, sy) = (width - 1 - y, height - 1 - x)
        case .left: (sx, sy) = (width - 1 - y, x)
        }
        let from = (sy * width + sx) * 3
        let to = (y * outWidth + x) * 3
        out[to] = pixels[from]
        out[to + 1] = pixels[from + 1]
        out[to + 2] = pixels[from + 2]
      }
    }
    return RGBImage(width: outWidth, height: outHeight, pixels: out)
  }

  /// Shrunk (never grown) so its longer side is at most `longEdge`, keeping the aspect; each
  /// new pixel the average of the source pixels it covers (area averaging, no aliasing).
  public func fitting(longEdge: Int) -> RGBImage {
    let long = max(width, height)
    guard long > longEdge, longEdge > 0 else { return self }
    let newWidth = max(1, (width * longEdge + long / 2) / long)
    let newHeight = max(1, (height * longEdge + long / 2) / long)
    var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
    pixels.withUnsafeBufferPointer { source in
      for y in 0..<newHeight {
        let y0 = y * height / newHeight
        let y1 = max(y0 + 1, (y + 1) * height / newHeight)
        for x in 0..<newWidth {
          let x0 = x * width / newWidth
          let x1 = max(x0 + 1, (x + 1) * width / newWidth)
          var sums = (0, 0, 0)
          for sy in y0..<y1 {
            var index = (sy * width + x0) * 3
            for _ in x0..<x1 {
              sums.0 += Int(source[index])
              sums.1 += Int(source[index + 1])
              sums.2 += Int(source[index + 2])
              index += 3
            }
          }
          let count = (y1 - y0) * (x1 - x0)
          let to = (y * newWidth + x) * 3
          out[to] = UInt8((sums.0 + count / 2) / count)
          out[to + 1] = UInt8((sums.1 + count / 2) / count)
          out[to + 2] = UInt8((sums.2 + count / 2) / count)
        }
      }
    }
    return RGBImage(width: newWidth, height: newHeight, pixels: out)
  }
}
