import ChatData
import Foundation
import Hashing
import ImagePipeline
import Support

/// The engine's `MediaProcessing` on Linux: `ImagePipeline` (libjpeg-turbo, libpng) for
/// photos and OpenSSL's SHA-256 for digests, each run on the global concurrent executor, never
/// on the engine's.
public struct LinuxMediaProcessing: MediaProcessing {
  public init() {}

  @concurrent
  public func preparePhoto(_ file: [UInt8]) async throws(MediaPreparationError) -> PreparedPhoto {
    do {
      let image = try ImagePipeline.compress(file)
      return PreparedPhoto(
        jpeg: image.jpeg, width: image.width, height: image.height, thumbnail: image.thumbnail)
    } catch {
      throw MediaPreparationError(error.description)
    }
  }

  @concurrent
  public func sha256(ofFileAt path: String) async throws(MediaPreparationError) -> String {
    let name = (path as NSString).lastPathComponent
    do {
      guard let found = try SHA256Hasher.file(at: path) else {
        throw MediaPreparationError("cannot read \(name)")
      }
      return Hex.encode(found.digest)
    } catch let error as MediaPreparationError {
      throw error
    } catch {
      throw MediaPreparationError("cannot read \(name): \(error)")
    }
  }

  @concurrent
  public func perform(_ work: @escaping @Sendable () throws -> Void) async throws {
    try work()
  }
}
