import Foundation
import Hashing
import Support

#if canImport(Glibc)
  import Glibc
#endif

/// The store's files: where a bucket's objects and uploads live, and how a file is written
/// whole (a temporary file, synced, renamed over, the folder synced) or read as JSON.
extension FolderObjectStore {
  func checkBucket(_ bucket: String) throws(S3Error) {
    guard buckets.contains(bucket) else { throw .noSuchBucket }
  }

  func objectPath(_ bucket: String, _ key: String) throws(S3Error) -> String {
    try checkBucket(bucket)
    guard !key.isEmpty, key.utf8.count <= 1024 else {
      throw .invalidArgument("An object key is 1 to 1,024 bytes.")
    }
    return "\(folder)/\(bucket)/objects/\(Hex.encode(Crypto.sha256(Array(key.utf8))))"
  }

  func uploadFolder(_ bucket: String, _ key: String, _ id: String) throws(S3Error)
    -> String
  {
    try checkBucket(bucket)
    guard id.count == 64, Hex.decode(id) != nil else { throw .noSuchUpload }
    let folder = "\(self.folder)/\(bucket)/uploads/\(id)"
    guard let upload = try readJSON(StoredUpload.self, at: folder + "/upload.json"),
      upload.key == key
    else { throw .noSuchUpload }
    return folder
  }

  /// Writes `bytes` to a temporary file beside `path` (0600), syncs it and renames it over.
  func write(_ bytes: [UInt8], to path: String) throws(S3Error) {
    _ = try write(to: path) { (fd: Int32) throws(S3Error) in try Self.writeAll(bytes, to: fd) }
  }

  /// Runs `fill` on a temporary file beside `path` (0600), syncs it, renames it over `path` and
  /// syncs the folder, so a crash leaves the old file or the new one, whole.
  func write<T>(to path: String, _ fill: (Int32) throws(S3Error) -> T) throws(S3Error)
    -> T
  {
    let temporary = "\(path).tmp-\(Hex.encode(withUnsafeBytes(of: random.next()) { Array($0) }))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .internalError("could not create a file: errno \(errno)") }
    let result: T
    do {
      result = try fill(fd)
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    guard fsync(fd) == 0 else {
      close(fd)
      unlink(temporary)
      throw .internalError("could not sync a file: errno \(errno)")
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      unlink(temporary)
      throw .internalError("could not rename a file: errno \(errno)")
    }
    syncFolder(of: path)
    return result
  }

  static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(S3Error) {
    var written = 0
    var failed: Int32 = 0
    bytes.withUnsafeBytes { buffer in
      while written < buffer.count {
        let result = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
        if result < 0 {
          if errno == EINTR { continue }
          failed = errno
          return
        }
        written += result
      }
    }
    if failed != 0 { throw .internalError("could not write a file: errno \(failed)") }
  }

  /// Flushes the folder holding `path`, so a rename into it survives a power loss.
  func syncFolder(of path: String) {
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }

  func writeJSON<T: Encodable>(_ value: T, to path: String) throws(S3Error) {
    do {
      try write(Array(JSONEncoder().encode(value)), to: path)
    } catch let error as S3Error {
      throw error
    } catch {
      throw .internalError("could not encode \(path): \(error)")
    }
  }

  /// Nil when the file is not there; an internal error when it is there and unreadable.
  func readJSON<T: Decodable>(_ type: T.Type, at path: String) throws(S3Error) -> T? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    do {
      return try JSONDecoder().decode(type, from: data)
    } catch {
      throw .internalError("\(path) is unreadable: \(error)")
    }
  }
}
