// libFuzzer target for the device's image decode path (built by scripts/wire-fuzz with
// ImagePipeline's sources and the C shim over libjpeg-turbo and libpng, all under ASan): any
// bytes a user may pick must give an image or an ImageError, never a crash, a leak or a read
// out of bounds. The limits are small so a header that asks for many pixels is refused
// instead of spending the run allocating.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageDecode(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let file = Array(UnsafeBufferPointer(start: data, count: size))
  var limits = ImageLimits()
  limits.maxPixels = 1 << 20
  limits.maxSide = 4_096
  let orientation = EXIFOrientation.read(from: file)
  do {
    let image = try ImagePipeline.decode(file, limits: limits, atLeast: 64)
    guard image.width > 0, image.height > 0,
      image.pixels.count == image.width * image.height * 3
    else {
      fatalError(
        "a decoded image of \(image.width) × \(image.height) has \(image.pixels.count) bytes")
    }
    let turned = image.oriented(orientation)
    guard turned.pixels.count == image.pixels.count else { fatalError("turning lost pixels") }
    let small = turned.fitting(longEdge: 16)
    guard max(small.width, small.height) <= 16 else {
      fatalError("fitting(longEdge: 16) gave \(small.width) × \(small.height)")
    }
  } catch {
    // An ImageError is the right answer for bytes that are not a picture.
  }
  return 0
}
