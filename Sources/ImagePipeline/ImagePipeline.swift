import CImageCodecs

/// Why a picture cannot be sent.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Neither JPEG nor PNG.
  case unsupportedFormat
  /// Larger than the limits allow to decode (checked before any pixel is decoded).
  case tooLarge(width: Int, height: Int)
  /// The file says it is a JPEG or PNG but cannot be decoded (truncated, damaged).
  case corrupt(String)

  public var description: String {
    switch self {
    case .unsupportedFormat: "not a JPEG or PNG image"
    case .tooLarge(let width, let height): "the image is too large to open (\(width) × \(height))"
    case .corrupt(let reason): "the image is damaged: \(reason)"
    }
  }
}

/// What the pipeline aims at and refuses (seed 003: about 200 KB at 1,600 px; a 10 KB
/// thumbnail in the database).
public struct ImageLimits: Sendable, Equatable {
  /// The longest side of the photo sent.
  public var longEdge = 1_600
  /// The photo's JPEG aims at this size or less (quality lowered step by step to reach it).
  public var targetBytes = 200 * 1024
  /// The longest side of the thumbnail.
  public var thumbnailLongEdge = 160
  /// The thumbnail's JPEG is at most this (API.md's limit).
  public var thumbnailBytes = 10_240
  /// Refused before decoding: a side longer than this…
  public var maxSide = 12_000
  /// …or more pixels than this (a decompression bomb stays a header).
  public var maxPixels = 48_000_000

  public init() {}
}

/// A photo ready to send: the JPEG, its size in pixels, its thumbnail.
public struct CompressedImage: Sendable, Equatable {
  public var jpeg: [UInt8]
  public var width: Int
  public var height: Int
  public var thumbnail: [UInt8]
}

/// Pixels: 3 bytes a pixel, RGB, rows top to bottom.
public struct RGBImage: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height * 3, "RGB needs 3 bytes a pixel")
    self.width = width
    self.height = height
    self.pixels = pixels
  }
}

/// The device's image pipeline (seed 003: "compress to about 200 KB at 1,600 px; keep
/// thumbnails (10 KB) in the database"): decode a JPEG or PNG, turn it upright (EXIF
/// orientation), leave every piece of metadata behind (location included: only pixels are
/// re-encoded), shrink it to the long edge, and encode a JPEG near the target size and a
/// thumbnail under its limit. Pure and synchronous: run it off the engine's executor.
public enum ImagePipeline {
  public static func compress(_ file: [UInt8], limits: ImageLimits = ImageLimits())
    throws(ImageError) -> CompressedImage
  {
    let upright = try decode(file, limits: limits, atLeast: limits.longEdge)
    let photo = upright.fitting(longEdge: limits.longEdge)
    let jpeg = try encode(
      photo, within: limits.targetBytes, qualities: [85, 78, 70, 62, 55, 48, 40])
    var small = photo.fitting(longEdge: limits.thumbnailLongEdge)
    var thumbnail = try encode(small, within: limits.thumbnailBytes, qualities: [70, 55, 40, 30])
    // A busy picture may need fewer pixels still to fit the thumbnail's bytes.
    while thumbnail.count > limits.thumbnailBytes && max(small.width, small.height) > 16 {
      small = small.fitting(longEdge: max(small.width, small.height) * 3 / 4)
      thumbnail = try encode(small, within: limits.thumbnailBytes, qualities: [40, 25])
    }
    return CompressedImage(
      jpeg: jpeg, width: photo.width, height: photo.height, thumbnail: thumbnail)
  }

  /// The size of a JPEG or PNG from its header, nothing decoded.
  public static func size(of file: [UInt8]) throws(ImageError) -> (width: Int, height: Int) {
    var width: Int32 = 0
    var height: Int32 = 0
    var error = [CChar](repeating: 0, count: Int(CIC_ERROR_SIZE))
    let status: Int32
    switch Format(file) {
    case .jpeg: status = cic_jpeg_size(file, file.count, &width, &height, &error)
    case .png: status = cic_png_size(file, file.count, &width, &height, &error)
    case nil: throw .unsupportedFormat
    }
    guard status == 0 else { throw .corrupt(Self.message(error)) }
    return (Int(width), Int(height))
  }

  /// Decodes the file upright, as RGB (a PNG's transparency over white). A JPEG is decoded
  /// at the smallest of libjpeg's scales (1, 1/2, 1/4, 1/8) whose long edge is still at least
  /// `atLeast`, so a 12-megapixel photo never becomes 36 MB of pixels on the way to 1,600 px.
  public static func decode(
    _ file: [UInt8], limits: ImageLimits = ImageLimits(), atLeast: Int = .max
  )
    throws(ImageError) -> RGBImage
  {
    let (width, height) = try size(of: file)
    guard width > 0, height > 0, width <= limits.maxSide, height <= limits.maxSide,
      width * height <= limits.maxPixels
    else { throw .tooLarge(width: width, height: height) }
    var error = [CChar](repeating: 0, count: Int(CIC_ERROR_SIZE))
    let image: RGBImage
    switch Format(file) {
    case .jpeg:
      let denominator = [8, 4, 2].first { max(width, height) / $0 >= atLeast } ?? 1
      var scaledWidth: Int32 = 0
      var scaledHeight: Int32 = 0
      guard
        cic_jpeg_scaled_size(
          file, file.count, Int32(denominator), &scaledWidth, &scaledHeight, &error) == 0
      else { throw .corrupt(Self.message(error)) }
      var pixels = [UInt8](repeating: 0, count: Int(scaledWidth) * Int(scaledHeight) * 3)
      let status = pixels.withUnsafeMutableBufferPointer {
        cic_jpeg_decode(file, file.count, Int32(denominator), $0.baseAddress, $0.count, &error)
      }
      guard status == 0 else { throw .corrupt(Self.message(error)) }
      image = RGBImage(width: Int(scaledWidth), height: Int(scaledHeight), pixels: pixels)
    case .png:
      var rgba = [UInt8](repeating: 0, count: width * height * 4)
      let status = rgba.withUnsafeMutableBufferPointer {
        cic_png_decode(file, file.count, $0.baseAddress, $0.count, &error)
      }
      guard status == 0 else { throw .corrupt(Self.message(error)) }
      image = RGBImage(width: width, height: height, pixels: Self.overWhite(rgba))
    case nil:
      throw .unsupportedFormat
    }
    let orientation = Format(file) == .jpeg ? EXIFOrientation.read(from: file) : .up
    return image.oriented(orientation)
  }

  /// A JPEG of `image` at the first of `qualities` whose size is at most `bytes` (the last one
  /// whatever its size).
  public static func encode(_ image: RGBImage, within bytes: Int, qualities: [Int])
    throws(ImageError) -> [UInt8]
  {
    var last: [UInt8] = []
    for quality in qualities {
      last = try encode(image, quality: quality)
      if last.count <= bytes { return last }
    }
    return last
  }

  public static func encode(_ image: RGBImage, quality: Int) throws(ImageError) -> [UInt8] {
    var error = [CChar](repeating: 0, count: Int(CIC_ERROR_SIZE))
    var output: UnsafeMutablePointer<UInt8>?
    var length = 0
    let status = image.pixels.withUnsafeBufferPointer {
      cic_jpeg_encode(
        $0.baseAddress, Int32(image.width), Int32(image.height), Int32(quality), &output, &length,
        &error)
    }
    defer { cic_free(output) }
    guard status == 0, let output else { throw .corrupt(Self.message(error)) }
    return Array(UnsafeBufferPointer(start: output, count: length))
  }

  /// RGBA pixels as a PNG (tests make their PNGs with it).
  public static func encodePNG(rgba: [UInt8], width: Int, height: Int) throws(ImageError)
    -> [UInt8]
  {
    var error = [CChar](repeating: 0, count: Int(CIC_ERROR_SIZE))
    var output: UnsafeMutablePointer<UInt8>?
    var length = 0
    let status = rgba.withUnsafeBufferPointer {
      cic_png_encode($0.baseAddress, Int32(width), Int32(height), &output, &length, &error)
    }
    defer { cic_free(output) }
    guard status == 0, let output else { throw .corrupt(Self.message(error)) }
    return Array(UnsafeBufferPointer(start: output, count: length))
  }

  enum Format {
    case jpeg, png

    init?(_ file: [UInt8]) {
      if file.starts(with: [0xFF, 0xD8, 0xFF]) {
        self = .jpeg
      } else if file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
        self = .png
      } else {
        return nil
      }
    }
  }

  /// RGBA composited over white: a transparent PNG shows as it does on a light screen.
  static func overWhite(_ rgba: [UInt8]) -> [UInt8] {
    var rgb = [UInt8](repeating: 0, count: rgba.count / 4 * 3)
    for pixel in 0..<(rgba.count / 4) {
      let alpha = Int(rgba[pixel * 4 + 3])
      for channel in 0..<3 {
        let value = Int(rgba[pixel * 4 + channel])
        rgb[pixel * 3 + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
      }
    }
    return rgb
  }

  private static func message(_ error: [CChar]) -> String {
    let bytes = error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return bytes.isEmpty ? "unknown error" : String(decoding: bytes, as: UTF8.self)
  }
}
