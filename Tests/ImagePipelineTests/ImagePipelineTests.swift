import ImagePipeline
import Testing

/// The device's image pipeline on images made here, at run time: JPEGs and PNGs of several
/// sizes, an EXIF orientation, a transparent PNG, a truncated file, a decompression bomb.
/// Serialized: making a 12-megapixel picture is seconds of CPU in a debug build, and CI runs
/// every suite at once on two cores (timing-bound tests elsewhere starved when these ran side
/// by side).
@Suite(.serialized) struct ImagePipelineTests {
  /// A picture with detail (so JPEG sizes are realistic): a colour gradient with a checker
  /// pattern, the left half redder than the right, a seeded noise on top.
  static func picture(width: Int, height: Int, seed: UInt64 = 1) -> RGBImage {
    var state = seed
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Int(state >> 59)
        let checker = ((x / 16 + y / 16) % 2) * 40
        let index = (y * width + x) * 3
        pixels[index] = UInt8(clamping: (x < width / 2 ? 200 : 40) + noise + checker / 2)
        pixels[index + 1] = UInt8(clamping: y * 200 / max(1, height) + noise)
        pixels[index + 2] = UInt8(clamping: (x < width / 2 ? 40 : 200) + checker / 2)
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  static func jpeg(width: Int, height: Int, quality: Int = 95) throws -> [UInt8] {
    try ImagePipeline.encode(picture(width: width, height: height), quality: quality)
  }

  /// `jpeg` with an APP1 EXIF segment (big-endian TIFF, IFD0: orientation, and a GPS pointer
  /// to stand for the location a phone writes) right after SOI.
  static func withEXIF(_ jpeg: [UInt8], orientation: Int) -> [UInt8] {
    var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]  // "MM", 42, IFD0 at 8
    tiff += [0, 2]  // two entries
    tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0]  // Orientation, SHORT
    tiff += [0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0]  // GPSInfo, LONG (no IFD: a marker)
    tiff += [0, 0, 0, 0]  // no next IFD
    let body: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff + Array("GPS 51.5N 0.1W".utf8)
    let length = body.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
      + jpeg.dropFirst(2)
  }

  static func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> (Int, Int, Int) {
    let index = (y * image.width + x) * 3
    return (Int(image.pixels[index]), Int(image.pixels[index + 1]), Int(image.pixels[index + 2]))
  }

  @Test(arguments: [(4032, 3024), (3000, 4000), (1600, 1200), (800, 600), (1601, 17)])
  func aPhotoComesOutAJPEGAtMost1600PixelsWithASmallThumbnail(width: Int, height: Int) throws {
    let photo = try ImagePipeline.compress(Self.jpeg(width: width, height: height))
    #expect(max(photo.width, photo.height) == min(1_600, max(width, height)))
    // The aspect is kept (to a pixel of rounding).
    #expect(abs(photo.width * height - photo.height * width) <= max(width, height))
    #expect(photo.jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
    #expect(photo.jpeg.count <= 200 * 1024, "\(photo.jpeg.count) bytes")
    #expect(try ImagePipeline.size(of: photo.jpeg) == (photo.width, photo.height))
    #expect(photo.thumbnail.count <= 10_240, "\(photo.thumbnail.count) bytes")
    let thumbnail = try ImagePipeline.size(of: photo.thumbnail)
    #expect(max(thumbnail.width, thumbnail.height) <= 160)
  }

  @Test func aPNGWithTransparencyComesOutAJPEGOverWhite() throws {
    let (width, height) = (2_000, 1_000)
    var rgba = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let index = (y * width + x) * 4
        rgba[index] = 0  // black…
        rgba[index + 3] = x < width / 2 ? 255 : 0  // …on the left, transparent on the right
      }
    }
    let png = try ImagePipeline.encodePNG(rgba: rgba, width: width, height: height)
    let photo = try ImagePipeline.compress(png)
    #expect((photo.width, photo.height) == (1_600, 800))
    let decoded = try ImagePipeline.decode(photo.jpeg)
    let (left, right) = (Self.pixel(decoded, 400, 400), Self.pixel(decoded, 1_200, 400))
    #expect(left.0 < 20 && left.1 < 20 && left.2 < 20, "\(left)")
    #expect(right.0 > 235 && right.1 > 235 && right.2 > 235, "\(right)")
  }

  /// The photo stands upright whatever the EXIF says, and no EXIF (the location a phone writes
  /// with it) is left in what is sent.
  @Test(arguments: EXIFOrientation.allCases)
  func theEXIFOrientationIsAppliedAndNoMetadataIsKept(_ orientation: EXIFOrientation) throws {
    // Stored 640 × 320: red on the left, blue on the right.
    let file = Self.withEXIF(
      try Self.jpeg(width: 640, height: 320), orientation: orientation.rawValue)
    #expect(EXIFOrientation.read(from: file) == orientation)
    let photo = try ImagePipeline.compress(file)
    let upright = try ImagePipeline.decode(photo.jpeg)
    let turned = [.leftMirrored, .right, .rightMirrored, .left].contains(orientation)
    #expect((upright.width, upright.height) == (turned ? (320, 640) : (640, 320)))
    // Where the stored left (red) half ends up once upright.
    let redSide: String =
      switch orientation {
      case .up, .downMirrored: "left"
      case .mirrored, .down: "right"
      case .leftMirrored, .right: "top"
      case .rightMirrored, .left: "bottom"
      }
    let probes: [String: (Int, Int)] =
      turned
      ? ["top": (160, 100), "bottom": (160, 540)] : ["left": (100, 160), "right": (540, 160)]
    for (side, point) in probes {
      let (red, _, blue) = Self.pixel(upright, point.0, point.1)
      #expect((red > blue) == (side == redSide), "\(orientation) at \(side): r \(red) b \(blue)")
    }
    #expect(!photo.jpeg.contains(subsequence: Array("Exif".utf8)))
    #expect(!photo.jpeg.contains(subsequence: Array("GPS".utf8)))
    #expect(!photo.thumbnail.contains(subsequence: Array("Exif".utf8)))
  }

  @Test func aDamagedEXIFIsIgnoredNotACrash() throws {
    let jpeg = try Self.jpeg(width: 64, height: 32)
    var file = Self.withEXIF(jpeg, orientation: 6)
    file[16] = 0xFF  // IFD0's offset (TIFF bytes 4–7) now points far outside the segment
    #expect(EXIFOrientation.read(from: file) == .up)
    #expect(EXIFOrientation.read(from: Array(file.prefix(12))) == .up)
    #expect(try ImagePipeline.decode(file).width == 64)
  }

  @Test func whatIsNotAPictureIsRefusedClearly() throws {
    #expect(throws: ImageError.unsupportedFormat) {
      try ImagePipeline.compress(Array("%PDF-1.7 not an image".utf8))
    }
    #expect(throws: ImageError.unsupportedFormat) { try ImagePipeline.compress([]) }
    let jpeg = try Self.jpeg(width: 800, height: 600)
    for cut in [3, 40, jpeg.count / 2, jpeg.count - 3] {
      do {
        _ = try ImagePipeline.compress(Array(jpeg.prefix(cut)))
        Issue.record("a JPEG cut at \(cut) of \(jpeg.count) bytes was accepted")
      } catch {
        guard case .corrupt = error else {
          Issue.record("cut at \(cut): \(error)")
          continue
        }
      }
    }
    let png = try ImagePipeline.encodePNG(
      rgba: [UInt8](repeating: 128, count: 300 * 200 * 4), width: 300, height: 200)
    for cut in [20, png.count / 2] {
      #expect(throws: ImageError.self) { try ImagePipeline.compress(Array(png.prefix(cut))) }
    }
  }

  /// A decompression bomb stays a header: a PNG that says 40,000 × 40,000 (6.4 GB of pixels)
  /// in a few hundred bytes is refused before any pixel is decoded.
  @Test func aDecompressionBombIsRefusedBeforeDecoding() throws {
    let small = try ImagePipeline.encodePNG(
      rgba: [UInt8](repeating: 0, count: 4 * 4 * 4), width: 4, height: 4)
    var bomb = small
    // IHDR's width and height are the 4-byte words at offsets 16 and 20; its CRC follows.
    let side: [UInt8] = [0x00, 0x00, 0x9C, 0x40]  // 40,000
    bomb.replaceSubrange(16..<20, with: side)
    bomb.replaceSubrange(20..<24, with: side)
    let crc = Self.crc32(Array(bomb[12..<29]))
    bomb.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8((crc >> $0) & 0xFF) })
    #expect(try ImagePipeline.size(of: bomb) == (40_000, 40_000))
    #expect(throws: ImageError.tooLarge(width: 40_000, height: 40_000)) {
      try ImagePipeline.compress(bomb)
    }
    var limits = ImageLimits()
    limits.maxPixels = 1_000
    #expect(throws: ImageError.tooLarge(width: 40, height: 30)) {
      try ImagePipeline.compress(try Self.jpeg(width: 40, height: 30), limits: limits)
    }
  }

  @Test func shrinkingAveragesAndNeverGrows() {
    let tiny = RGBImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255])
    #expect(tiny.fitting(longEdge: 1).pixels == [128, 128, 128])
    #expect(tiny.fitting(longEdge: 10) == tiny)
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}

extension Array where Element == UInt8 {
  func contains(subsequence: [UInt8]) -> Bool {
    guard subsequence.count <= count else { return false }
    return (0...(count - subsequence.count)).contains {
      self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
    }
  }
}
