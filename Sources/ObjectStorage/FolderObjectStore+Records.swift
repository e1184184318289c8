import Support

/// An object as the store describes it.
package struct ObjectInfo: Sendable, Equatable {
  package var key: String
  package var size: Int
  /// With its quotes, as S3 sends it: `"9b2cf535f27731c974343645a3985328"`, or `"…-3"` for an
  /// object put together from 3 parts.
  package var etag: String
  package var contentType: String
  package var lastModified: Timestamp
}

/// A part of a multipart upload the store holds.
package struct PartInfo: Sendable, Equatable {
  package var number: Int
  package var etag: String
  package var size: Int
  package var lastModified: Timestamp
}

/// An object's metadata as its `….json` file beside the bytes holds it.
struct StoredObject: Codable {
  var key: String
  var size: Int
  var etag: String
  var contentType: String
  var lastModified: Int64

  init(_ info: ObjectInfo) {
    key = info.key
    size = info.size
    etag = info.etag
    contentType = info.contentType
    lastModified = info.lastModified.millisecondsSince1970
  }

  var info: ObjectInfo {
    ObjectInfo(
      key: key, size: size, etag: etag, contentType: contentType,
      lastModified: Timestamp(millisecondsSince1970: lastModified))
  }
}

/// A multipart upload's `upload.json`: the key it is for, its type and when it began.
struct StoredUpload: Codable {
  var key: String
  var contentType: String?
  var initiated: String
}

/// A stored part's `part-N.json`.
struct StoredPart: Codable {
  var number: Int
  var etag: String
  var size: Int
  var lastModified: Int64

  init(_ part: PartInfo) {
    number = part.number
    etag = part.etag
    size = part.size
    lastModified = part.lastModified.millisecondsSince1970
  }

  var info: PartInfo {
    PartInfo(
      number: number, etag: etag, size: size,
      lastModified: Timestamp(millisecondsSince1970: lastModified))
  }
}
