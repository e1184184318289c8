/// Whether media is a photo or a document.
public enum MediaKind: String, Codable, Sendable {
  case image, file
}

/// The media a message carries: the key of a completed upload, what it is, and for images the
/// inline thumbnail (API.md Part 2, "Media").
public struct Media: Codable, Sendable, Equatable {
  public var key: String
  public var kind: MediaKind
  public var contentType: String
  public var byteCount: Int
  /// 64 lowercase hexadecimal digits.
  public var sha256: String
  public var width: Int?
  public var height: Int?
  public var fileName: String?
  /// A base64 JPEG of at most 10,240 bytes decoded.
  public var thumbnail: String?

  public init(
    key: String, kind: MediaKind, contentType: String, byteCount: Int, sha256: String,
    width: Int? = nil, height: Int? = nil, fileName: String? = nil, thumbnail: String? = nil
  ) {
    self.key = key
    self.kind = kind
    self.contentType = contentType
    self.byteCount = byteCount
    self.sha256 = sha256
    self.width = width
    self.height = height
    self.fileName = fileName
    self.thumbnail = thumbnail
  }
}

/// `POST /v1/media/uploads`.
public struct CreateUpload: Codable, Sendable, Equatable {
  public var kind: MediaKind
  public var contentType: String
  public var byteCount: Int
  public var sha256: String
  /// Files only, at most 255 bytes.
  public var fileName: String?

  public init(
    kind: MediaKind, contentType: String, byteCount: Int, sha256: String, fileName: String?
  ) {
    self.kind = kind
    self.contentType = contentType
    self.byteCount = byteCount
    self.sha256 = sha256
    self.fileName = fileName
  }
}

/// One part of an upload: a presigned `PUT` of `byteCount` bytes from `offset`.
public struct UploadPart: Codable, Sendable, Equatable {
  public var number: Int
  public var url: String
  public var offset: Int
  public var byteCount: Int

  public init(number: Int, url: String, offset: Int, byteCount: Int) {
    self.number = number
    self.url = url
    self.offset = offset
    self.byteCount = byteCount
  }
}

/// The answer to `POST /v1/media/uploads`.
public struct Upload: Codable, Sendable, Equatable {
  public var mediaKey: String
  public var expiresAt: String
  public var parts: [UploadPart]

  public init(mediaKey: String, expiresAt: String, parts: [UploadPart]) {
    self.mediaKey = mediaKey
    self.expiresAt = expiresAt
    self.parts = parts
  }
}

/// A part the store has, with the ETag it answered.
public struct ReceivedPart: Codable, Sendable, Equatable {
  public var number: Int
  public var etag: String

  public init(number: Int, etag: String) {
    self.number = number
    self.etag = etag
  }
}

/// `GET /v1/media/uploads/{key}`: what is left to send, with fresh URLs.
public struct UploadStatus: Codable, Sendable, Equatable {
  public var mediaKey: String
  public var complete: Bool
  public var parts: [UploadPart]
  public var received: [ReceivedPart]

  public init(mediaKey: String, complete: Bool, parts: [UploadPart], received: [ReceivedPart]) {
    self.mediaKey = mediaKey
    self.complete = complete
    self.parts = parts
    self.received = received
  }
}

/// `POST /v1/media/uploads/{key}/complete`.
public struct CompleteUpload: Codable, Sendable, Equatable {
  public var parts: [ReceivedPart]

  public init(parts: [ReceivedPart]) {
    self.parts = parts
  }
}

/// The answer to `POST /v1/media/uploads/{key}/complete`.
public struct UploadCompleted: Codable, Sendable, Equatable {
  public var mediaKey: String
  public var complete: Bool

  public init(mediaKey: String, complete: Bool) {
    self.mediaKey = mediaKey
    self.complete = complete
  }
}

/// `GET /v1/media/{key}`: where to download the bytes.
public struct MediaDownload: Codable, Sendable, Equatable {
  public var url: String
  public var expiresAt: String
  public var byteCount: Int
  public var contentType: String

  public init(url: String, expiresAt: String, byteCount: Int, contentType: String) {
    self.url = url
    self.expiresAt = expiresAt
    self.byteCount = byteCount
    self.contentType = contentType
  }
}
