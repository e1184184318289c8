import ChatAPI
import Support

/// Where media bytes live: an S3-compatible store the devices reach through presigned URLs
/// (API.md Part 2, "Media"). The service decides who may upload and download what; the store
/// only holds bytes. `chat-server` plugs in its built-in store (`--object-store-port`); a
/// service without one answers the media routes 503.
///
/// Object keys are the service's own (`media/<mediaKey>`); the calls that reach the store are
/// `async` (a remote one is a network call away), and each throws `MediaStorageError` with
/// what went wrong. Making a presigned URL reaches nothing.
public protocol MediaStorage: Sendable {
  /// A presigned `PUT` of the whole object, valid `expires` seconds from `now`.
  func putURL(key: String, expires: Int, now: Timestamp) -> String
  /// Starts a multipart upload; its id.
  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String
  /// A presigned `UploadPart` URL.
  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  /// What the store holds of an upload: the parts of a multipart one, or part 1 for a single
  /// `PUT` whose object is there.
  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  /// Puts a multipart upload's parts together (a single `PUT` needs nothing).
  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  /// The object's size and SHA-256 (hex), reading its bytes; nil when it is not there.
  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)?
  /// Deletes the object and any upload of it; nothing there is not an error.
  func delete(key: String, uploadId: String?) async throws(MediaStorageError)
  /// Moves an object to another key (the bytes a device sent, to where no `PUT` URL points);
  /// false when there is nothing at `from` (moved already).
  func move(from: String, to: String) async throws(MediaStorageError) -> Bool
  /// A presigned `GET` (it honours `Range`) whose answer says `contentType`, whatever the
  /// object was stored with.
  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String
}

/// Why the store refused or failed.
public enum MediaStorageError: Error, Equatable, Sendable {
  /// The parts named are not what the store holds (missing, another ETag, too small).
  case partsRefused(String)
  /// The store could not be reached or failed; try again later.
  case unavailable(String)
}
