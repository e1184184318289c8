import ChatAPI

/// One request to object storage: a presigned URL the server handed out (absolute, already
/// signed: sent exactly as given), with the method it was signed for.
public struct ObjectRequest: Sendable, Equatable {
  /// `PUT` (a part of an upload) or `GET` (a download, maybe with `Range`).
  public var method: String
  public var url: String
  public var headers: HeaderFields
  public var body: [UInt8]

  public init(method: String, url: String, headers: HeaderFields = [:], body: [UInt8] = []) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}

/// The seam to object storage: media bytes go straight between the device and the store
/// through presigned URLs (API.md Part 2, "Media"), never through the chat server. Live:
/// `ChatTransports.WireHTTPTransport` on Linux (the same client as the API's), URLSession on
/// Apple platforms. Errors are the API's (`TransportError`).
public protocol ObjectTransfer: Sendable {
  func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse
}

/// Why an attachment cannot be prepared: said to the user as it is.
public struct MediaPreparationError: Error, Equatable, Sendable, CustomStringConvertible {
  public let reason: String

  public init(_ reason: String) {
    self.reason = reason
  }

  public var description: String { reason }
}

/// A photo as the device sends it.
public struct PreparedPhoto: Sendable, Equatable {
  /// A JPEG, at most 1,600 px on the long edge, no metadata.
  public var jpeg: [UInt8]
  public var width: Int
  public var height: Int
  /// A JPEG of at most `APILimits.maxThumbnailBytes`.
  public var thumbnail: [UInt8]

  public init(jpeg: [UInt8], width: Int, height: Int, thumbnail: [UInt8]) {
    self.jpeg = jpeg
    self.width = width
    self.height = height
    self.thumbnail = thumbnail
  }
}

/// The seam to the platform's image codecs and digest: CPU work the engine must not do on its
/// own executor, so live implementations run it elsewhere. Live: `ChatTransports.LinuxMedia`
/// (libjpeg-turbo, libpng, OpenSSL); an Apple app adapts ImageIO and CryptoKit.
public protocol MediaProcessing: Sendable {
  /// Decodes a JPEG or PNG file, applies its EXIF orientation, drops all metadata, resizes it
  /// to at most 1,600 px on the long edge and encodes a JPEG of about 200 KB with a thumbnail.
  /// A corrupt or oversized file is an error, never a crash.
  func preparePhoto(_ file: [UInt8]) async throws(MediaPreparationError) -> PreparedPhoto
  /// The SHA-256 of a file (64 lowercase hex digits), read in pieces.
  func sha256(ofFileAt path: String) async throws(MediaPreparationError) -> String
  /// Runs file work of the engine's (copying a document into the media folder) where this
  /// runs its own work.
  func perform(_ work: @escaping @Sendable () throws -> Void) async throws
}
