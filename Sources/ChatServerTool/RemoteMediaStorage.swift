import ChatAPI
import ChatServer
import Hashing
import ObjectStorage
import Support

/// `MediaStorage` over a remote S3-compatible store (`chat-server --s3-endpoint`): the devices
/// get presigned URLs on the store's own address; the service calls it with header-signed
/// requests (`S3Client`).
struct RemoteMediaStorage: MediaStorage {
  let client: S3Client
  var endpoint: S3Endpoint { client.endpoint }

  func putURL(key: String, expires: Int, now: Timestamp) -> String {
    endpoint.presignedURL("PUT", key: key, expires: expires, at: now)
  }

  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String {
    do {
      return try await client.createMultipartUpload(key: key, contentType: contentType)
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  {
    endpoint.presignedURL(
      "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)],
      expires: expires, at: now)
  }

  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  {
    do {
      guard let uploadId else {
        return try await client.head(key: key).map { [ReceivedPart(number: 1, etag: $0)] } ?? []
      }
      return try await client.listParts(key: key, uploadId: uploadId).map {
        ReceivedPart(number: $0.number, etag: $0.etag)
      }
    } catch .refused(404, let code, _) {
      throw .partsRefused("the store has no such upload (\(code))")
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  {
    do {
      try await client.completeMultipartUpload(
        key: key, uploadId: uploadId, parts: parts.map { ($0.number, $0.etag) })
    } catch .refused(let status, let code, let message) where status < 500 {
      throw .partsRefused("\(code): \(message)")
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)? {
    do {
      return try await client.digest(key: key).map { ($0.size, Hex.encode($0.sha256)) }
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func delete(key: String, uploadId: String?) async throws(MediaStorageError) {
    do {
      try await client.delete(key: key)
      if let uploadId { try await client.abortMultipartUpload(key: key, uploadId: uploadId) }
    } catch .refused(404, _, _) {
      return
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func move(from: String, to: String) async throws(MediaStorageError) -> Bool {
    do {
      guard try await client.copy(from: from, to: to) else { return false }
      try await client.delete(key: from)
      return true
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String {
    endpoint.presignedURL(
      "GET", key: key, query: [("response-content-type", contentType)], expires: expires, at: now)
  }
}
