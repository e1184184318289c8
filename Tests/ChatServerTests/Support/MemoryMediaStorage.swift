import ChatAPI
import Foundation
import Hashing
import Support
import Synchronization

@testable import ChatServer

/// `MediaStorage` in memory (the seam `chat-server` fills with its built-in store): objects by
/// key, and multipart uploads whose parts a test puts with `put(_:at:)` where a device would
/// send them to the URL; as in S3, a completed multipart upload is gone (its parts are one
/// object). `failing` makes every call fail as an unreachable store does.
final class MemoryMediaStorage: MediaStorage {
  private let objects = Mutex<[String: [UInt8]]>([:])
  /// Open multipart uploads: key → parts by number.
  private let uploads = Mutex<[String: [Int: [UInt8]]]>([:])
  let failing = Atomic<Bool>(false)

  /// Where a device sends the bytes of `url` (`memory://put/<key>`).
  func put(_ bytes: [UInt8], at url: String) {
    if url.hasPrefix("memory://part/") {
      let path = url.dropFirst("memory://part/".count)
      guard let slash = path.lastIndex(of: "/"), let number = Int(path[path.index(after: slash)...])
      else { return }
      let key = String(path[..<slash])
      uploads.withLock { $0[key]?[number] = bytes }
      return
    }
    let key = String(url.dropFirst("memory://put/".count))
    objects.withLock { $0[key] = bytes }
  }

  /// Whether the checked bytes of `mediaKey` are here.
  func holds(_ mediaKey: String) -> Bool {
    objects.withLock { $0["media/\(mediaKey)"] != nil }
  }

  /// Whether any bytes of `mediaKey` are here, checked or still incoming.
  func holdsAny(_ mediaKey: String) -> Bool {
    objects.withLock { $0["media/\(mediaKey)"] != nil || $0["incoming/\(mediaKey)"] != nil }
  }

  private func check() throws(MediaStorageError) {
    if failing.load(ordering: .relaxed) { throw .unavailable("the store is down") }
  }

  func putURL(key: String, expires: Int, now: Timestamp) -> String { "memory://put/\(key)" }

  func startMultipart(key: String, contentType: String) async throws(MediaStorageError) -> String {
    try check()
    uploads.withLock { $0[key] = [:] }
    return "upload-\(key)"
  }

  func partURL(key: String, uploadId: String, number: Int, expires: Int, now: Timestamp)
    -> String
  { "memory://part/\(key)/\(number)" }

  func receivedParts(key: String, uploadId: String?) async throws(MediaStorageError)
    -> [ReceivedPart]
  {
    try check()
    guard uploadId != nil else {
      return objects.withLock { $0[key] } == nil ? [] : [ReceivedPart(number: 1, etag: "\"m\"")]
    }
    guard let parts = uploads.withLock({ $0[key] }) else {
      throw .partsRefused("the store has no such upload")
    }
    return parts.keys.sorted().map { ReceivedPart(number: $0, etag: "\"p\($0)\"") }
  }

  func completeMultipart(key: String, uploadId: String, parts: [ReceivedPart])
    async throws(MediaStorageError)
  {
    try check()
    guard let held = uploads.withLock({ $0.removeValue(forKey: key) }) else {
      throw .partsRefused("the store has no such upload")
    }
    let bytes = held.keys.sorted().flatMap { held[$0] ?? [] }
    objects.withLock { $0[key] = bytes }
  }

  func digest(key: String) async throws(MediaStorageError) -> (byteCount: Int, sha256: String)? {
    try check()
    return objects.withLock { $0[key] }.map { ($0.count, Hex.encode(Crypto.sha256($0))) }
  }

  func delete(key: String, uploadId: String?) async throws(MediaStorageError) {
    try check()
    _ = objects.withLock { $0.removeValue(forKey: key) }
  }

  func move(from: String, to: String) async throws(MediaStorageError) -> Bool {
    try check()
    return objects.withLock { objects in
      guard let bytes = objects.removeValue(forKey: from) else { return false }
      objects[to] = bytes
      return true
    }
  }

  func getURL(key: String, contentType: String, expires: Int, now: Timestamp) -> String {
    "memory://get/\(key)"
  }
}
