import ChatAPI
import ChatData
import ChatServer
import Foundation
import Hashing
import Support

/// The object store of the simulated world: S3 as the server and the devices see it, in
/// memory, outside the server (a server restart leaves it as it was). The server reaches it
/// through `MediaStorage` (`SimMediaStorage`), the devices through the simulated network
/// (`SimObjectTransfer`), with a URL `sim-object://<key>` for both a part's `PUT` and a ranged
/// `GET`. Single-part uploads only: the simulation's files stay under a part's 8 MiB (the
/// multipart path is the end-to-end tests').
///
/// It keeps what the checker needs: how often each key was stored (a part the store held,
/// sent again, is an upload that started over).
final class SimObjectStore: @unchecked Sendable {
  // @unchecked: touched only on the world's thread (the server's executor runs there too).
  private(set) var objects: [String: [UInt8]] = [:]
  /// Each key a `PUT` stored while the store already held it.
  private(set) var storedAgain: [String] = []

  static let scheme = "sim-object://"

  static func url(_ key: String) -> String { scheme + key }

  /// A device's request to a URL the server handed out.
  func handle(_ request: ObjectRequest) -> APIResponse {
    guard request.url.hasPrefix(Self.scheme) else { return APIResponse(status: 400) }
    let key = String(request.url.dropFirst(Self.scheme.count))
    switch request.method {
    case "PUT":
      if objects[key] != nil { storedAgain.append(key) }
      objects[key] = request.body
      return APIResponse(status: 200, headers: ["ETag": Self.etag(request.body)])
    case "GET":
      guard let bytes = objects[key] else { return APIResponse(status: 404) }
      guard let range = request.headers["Range"].flatMap(Self.range) else {
        return APIResponse(status: 200, body: bytes)
      }
      guard range.lowerBound < bytes.count else { return APIResponse(status: 416) }
      return APIResponse(
        status: 206, body: Array(bytes[range.lowerBound...min(range.upperBound, bytes.count - 1)]))
    default:
      return APIResponse(status: 405)
    }
  }

  /// `bytes=first-last`.
  private static func range(_ header: String) -> ClosedRange<Int>? {
    guard header.hasPrefix("bytes=") else { return nil }
    let bounds = header.dropFirst(6).split(separator: "-").compactMap { Int($0) }
    guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
    return bounds[0]...bounds[1]
  }

  static func etag(_ bytes: [UInt8]) -> String {
    "\"" + Hex.encode(Crypto.sha256(bytes).prefix(16)) + "\""
  }

  func bytes(_ key: String) -> [UInt8]? { objects[key] }

  fileprivate func remove(_ key: String) { objects[key] = nil }

  fileprivate func move(_ from: String, _ to: String) -> Bool {
    guard let bytes = objects.removeValue(forKey: from) else { return false }
    objects[to] = bytes
    return true
  }
}

/// The server's side of the simulated store.
struct SimMediaStorage: MediaStorage {
  let store: SimObjectStore

  func putURL(key: String, expires: Int, now: Timestamp) -> String { SimObjectStore.url(key) }

  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String {
    throw .unavailable("the simulated store takes single-part uploads only")
  }

  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  { SimObjectStore.url(key) }

  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  {
    store.bytes(key).map { [ReceivedPart(number: 1, etag: SimObjectStore.etag($0))] } ?? []
  }

  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  {
    throw .partsRefused("the simulated store takes single-part uploads only")
  }

  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)? {
    store.bytes(key).map { ($0.count, Hex.encode(Crypto.sha256($0))) }
  }

  func delete(key: String, uploadId: String?) async throws(MediaStorageError) {
    store.remove(key)
  }

  func move(from: String, to: String) async throws(MediaStorageError) -> Bool {
    store.move(from, to)
  }

  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String {
    SimObjectStore.url(key)
  }
}

/// The devices' `MediaProcessing` in the simulation: everything on the caller's executor (the
/// device's stepped one), so a run stays a function of its seed. A "photo" is the picked
/// file's bytes as they are, described as 1,600 × 1,200 with its first bytes as the thumbnail:
/// the simulation checks where bytes go, not how a picture is compressed (ImagePipelineTests
/// do).
struct SimMediaProcessing: MediaProcessing {
  func preparePhoto(_ file: [UInt8]) async throws(MediaPreparationError) -> PreparedPhoto {
    PreparedPhoto(jpeg: file, width: 1_600, height: 1_200, thumbnail: Array(file.prefix(48)))
  }

  func sha256(ofFileAt path: String) async throws(MediaPreparationError) -> String {
    guard let sha256 = Checker.sha256(ofFileAt: path) else {
      throw MediaPreparationError("cannot read \(path)")
    }
    return sha256
  }

  func perform(_ work: @escaping @Sendable () throws -> Void) async throws {
    try work()
  }
}
