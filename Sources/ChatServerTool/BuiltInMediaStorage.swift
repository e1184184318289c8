import ChatAPI
import ChatServer
import Hashing
import ObjectStorage
import Support

/// `MediaStorage` over the built-in store: presigned URLs for the devices on the store's own
/// address, and the folder called directly for the rest.
struct BuiltInMediaStorage: MediaStorage {
  let store: FolderObjectStore
  let scheme: String
  /// With the port: what the URLs sign as their `host`.
  let host: String
  let credentials: SigV4Credentials
  var bucket: String { ObjectStoreEndpoint.bucket }

  func putURL(key: String, expires: Int, now: Timestamp) -> String {
    url("PUT", key, [], expires, now)
  }

  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String {
    do {
      return try store.createUpload(bucket: bucket, key: key, contentType: contentType)
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  {
    url("PUT", key, [("partNumber", String(number)), ("uploadId", uploadId)], expires, now)
  }

  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  {
    do {
      guard let uploadId else {
        return [ReceivedPart(number: 1, etag: try store.info(bucket: bucket, key: key).etag)]
      }
      return try store.parts(bucket: bucket, key: key, uploadId: uploadId).map {
        ReceivedPart(number: $0.number, etag: $0.etag)
      }
    } catch .noSuchKey {
      return []
    } catch .noSuchUpload {
      throw .partsRefused("the store has no such upload")
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  {
    do {
      try store.complete(
        bucket: bucket, key: key, uploadId: uploadId, parts: parts.map { ($0.number, $0.etag) })
    } catch .internalError(let detail) {
      throw .unavailable(detail)
    } catch {
      throw .partsRefused(error.message)
    }
  }

  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)? {
    do {
      let (size, sha256) = try store.digest(bucket: bucket, key: key)
      return (size, Hex.encode(sha256))
    } catch .noSuchKey {
      return nil
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func delete(key: String, uploadId: String?) async throws(MediaStorageError) {
    do {
      try store.delete(bucket: bucket, key: key)
      if let uploadId { try store.abort(bucket: bucket, key: key, uploadId: uploadId) }
    } catch .noSuchUpload {
      return
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func move(from: String, to: String) async throws(MediaStorageError) -> Bool {
    do {
      return try store.move(bucket: bucket, from: from, to: to)
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String {
    url("GET", key, [("response-content-type", contentType)], expires, now)
  }

  private func url(
    _ method: String, _ key: String, _ query: [(name: String, value: String)], _ expires: Int,
    _ now: Timestamp
  ) -> String {
    SigV4.presignedURL(
      SigV4.Presign(
        scheme: scheme, host: host,
        request: SigV4Request(method: method, path: "/\(bucket)/\(key)", query: query),
        region: ObjectStoreEndpoint.region, expires: expires),
      credentials: credentials, at: now)
  }
}
