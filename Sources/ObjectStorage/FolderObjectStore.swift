import Foundation
import Hashing
import Support

#if canImport(Glibc)
  import Glibc
#endif

/// The built-in S3-compatible store's bytes: a folder under the server's data directory.
///
/// `<folder>/<bucket>/objects/<sha256 of the key, hex>` holds an object's bytes, `….json` its
/// key and metadata; `<folder>/<bucket>/uploads/<uploadId>/` a multipart upload (`upload.json`,
/// `part-N` and `part-N.json`). Every file is written to a temporary name, synced and renamed
/// (a crash leaves the old object or the new one, never half of one), mode 0600; folders 0700.
/// Keys are hashed into file names, so no key can name a path outside the folder.
package final class FolderObjectStore: Sendable {
  /// S3's smallest part, other than the last, at completion.
  package static let minimumPartSize = 5 * 1024 * 1024
  package static let maxPartNumber = 10_000

  package let folder: String
  package let buckets: Set<String>
  private let clock: any TimeSource
  let random: any RandomSource

  /// Opens (making them when missing) the folder and one subfolder a bucket.
  package init(
    folder: String, buckets: Set<String>, clock: any TimeSource = SystemTimeSource(),
    random: any RandomSource = SystemRandomSource()
  ) throws {
    self.folder = folder
    self.buckets = buckets
    self.clock = clock
    self.random = random
    for bucket in buckets {
      for sub in ["objects", "uploads"] {
        try FileManager.default.createDirectory(
          atPath: "\(folder)/\(bucket)/\(sub)", withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      }
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
  }

  // MARK: - Objects

  @discardableResult
  package func put(bucket: String, key: String, bytes: [UInt8], contentType: String?)
    throws(S3Error) -> ObjectInfo
  {
    let path = try objectPath(bucket, key)
    let info = ObjectInfo(
      key: key, size: bytes.count, etag: "\"\(Hex.encode(Crypto.md5(bytes)))\"",
      contentType: contentType ?? "binary/octet-stream", lastModified: clock.now())
    try write(bytes, to: path)
    try writeJSON(StoredObject(info), to: path + ".json")
    return info
  }

  package func info(bucket: String, key: String) throws(S3Error) -> ObjectInfo {
    let path = try objectPath(bucket, key)
    guard let stored = try readJSON(StoredObject.self, at: path + ".json"), stored.key == key,
      FileManager.default.fileExists(atPath: path)
    else { throw .noSuchKey }
    return stored.info
  }

  /// The object's bytes, or those of `range` (inclusive offsets, already resolved against the
  /// size by `resolve(range:size:)`).
  package func read(bucket: String, key: String, range: ClosedRange<Int>? = nil)
    throws(S3Error) -> (ObjectInfo, [UInt8])
  {
    let info = try info(bucket: bucket, key: key)
    let path = try objectPath(bucket, key)
    guard let handle = FileHandle(forReadingAtPath: path) else { throw .noSuchKey }
    defer { try? handle.close() }
    do {
      if let range {
        try handle.seek(toOffset: UInt64(range.lowerBound))
        return (info, Array(try handle.read(upToCount: range.count) ?? Data()))
      }
      return (info, Array(try handle.readToEnd() ?? Data()))
    } catch {
      throw .internalError("reading an object failed: \(error)")
    }
  }

  /// The object's size and SHA-256, read a mebibyte at a time.
  package func digest(bucket: String, key: String) throws(S3Error) -> (size: Int, sha256: [UInt8]) {
    _ = try info(bucket: bucket, key: key)
    let path = try objectPath(bucket, key)
    let found: (byteCount: Int, digest: [UInt8])?
    do {
      found = try SHA256Hasher.file(at: path)
    } catch {
      throw .internalError("reading an object failed: \(error)")
    }
    guard let found else { throw .noSuchKey }
    return (found.byteCount, found.digest)
  }

  /// Deletes an object; deleting one that is not there is not an error (as in S3).
  package func delete(bucket: String, key: String) throws(S3Error) {
    let path = try objectPath(bucket, key)
    for file in [path + ".json", path] where unlink(file) != 0 && errno != ENOENT {
      throw .internalError("could not delete \(file): errno \(errno)")
    }
  }

  /// Moves an object to another key of the bucket (a rename: no bytes copied); false when
  /// there is no object at `from`.
  @discardableResult
  package func move(bucket: String, from: String, to: String) throws(S3Error) -> Bool {
    let source = try objectPath(bucket, from)
    let target = try objectPath(bucket, to)
    guard var info = try? info(bucket: bucket, key: from) else { return false }
    info.key = to
    try writeJSON(StoredObject(info), to: target + ".json")
    guard rename(source, target) == 0 else {
      throw .internalError("could not move an object: errno \(errno)")
    }
    syncFolder(of: target)
    try delete(bucket: bucket, key: from)
    return true
  }

  // MARK: - Multipart uploads

  package func createUpload(bucket: String, key: String, contentType: String?)
    throws(S3Error) -> String
  {
    try checkBucket(bucket)
    let id = Hex.encode((0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } })
    let folder = "\(self.folder)/\(bucket)/uploads/\(id)"
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: false,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw .internalError("could not make an upload's folder: \(error)")
    }
    try writeJSON(
      StoredUpload(key: key, contentType: contentType, initiated: clock.now().rfc3339),
      to: folder + "/upload.json")
    return id
  }

  /// Stores a part (again: a part sent twice keeps the last bytes, as S3 does); its ETag.
  package func putPart(
    bucket: String, key: String, uploadId: String, number: Int, bytes: [UInt8]
  ) throws(S3Error) -> String {
    guard (1...Self.maxPartNumber).contains(number) else {
      throw .invalidArgument("Part number must be an integer between 1 and 10000, inclusive.")
    }
    let folder = try uploadFolder(bucket, key, uploadId)
    let part = PartInfo(
      number: number, etag: "\"\(Hex.encode(Crypto.md5(bytes)))\"", size: bytes.count,
      lastModified: clock.now())
    try write(bytes, to: "\(folder)/part-\(number)")
    try writeJSON(StoredPart(part), to: "\(folder)/part-\(number).json")
    return part.etag
  }

  /// The parts stored, by number.
  package func parts(bucket: String, key: String, uploadId: String) throws(S3Error) -> [PartInfo] {
    let folder = try uploadFolder(bucket, key, uploadId)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    var parts: [PartInfo] = []
    for name in names where name.hasPrefix("part-") && name.hasSuffix(".json") {
      guard let stored = try readJSON(StoredPart.self, at: "\(folder)/\(name)"),
        FileManager.default.fileExists(atPath: "\(folder)/part-\(stored.number)")
      else { continue }
      parts.append(stored.info)
    }
    return parts.sorted { $0.number < $1.number }
  }

  /// Puts the named parts together into the object, in order, and ends the upload. The ETag
  /// of the result is S3's: the MD5 of the parts' MD5s, then `-` and how many.
  @discardableResult
  package func complete(
    bucket: String, key: String, uploadId: String, parts named: [(number: Int, etag: String)]
  ) throws(S3Error) -> ObjectInfo {
    let folder = try uploadFolder(bucket, key, uploadId)
    guard !named.isEmpty else {
      throw .invalidArgument("You must specify at least one part.")
    }
    guard zip(named, named.dropFirst()).allSatisfy({ $0.number < $1.number }) else {
      throw .invalidPartOrder
    }
    let held = Dictionary(
      uniqueKeysWithValues: try parts(bucket: bucket, key: key, uploadId: uploadId).map {
        ($0.number, $0)
      })
    // Every part is there with its ETag before any size is judged (as S3 answers).
    var stored: [PartInfo] = []
    for part in named {
      guard let held = held[part.number], Self.sameETag(held.etag, part.etag) else {
        throw .invalidPart(part.number)
      }
      stored.append(held)
    }
    guard stored.dropLast().allSatisfy({ $0.size >= Self.minimumPartSize }) else {
      throw .entityTooSmall
    }
    let digests = stored.flatMap { Self.etagBytes($0.etag) }
    let upload = try readJSON(StoredUpload.self, at: folder + "/upload.json")
    let path = try objectPath(bucket, key)
    // The parts are copied one after another into the object's file, never held together.
    let size = try write(to: path) { (fd: Int32) throws(S3Error) in
      var total = 0
      for part in named {
        guard let source = FileHandle(forReadingAtPath: "\(folder)/part-\(part.number)") else {
          throw .invalidPart(part.number)
        }
        defer { try? source.close() }
        do {
          while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
            try Self.writeAll(Array(chunk), to: fd)
            total += chunk.count
          }
        } catch let error as S3Error {
          throw error
        } catch {
          throw .internalError("reading a part failed")
        }
      }
      return total
    }
    let info = ObjectInfo(
      key: key, size: size,
      etag: "\"\(Hex.encode(Crypto.md5(digests)))-\(named.count)\"",
      contentType: upload?.contentType ?? "binary/octet-stream", lastModified: clock.now())
    try writeJSON(StoredObject(info), to: path + ".json")
    try? FileManager.default.removeItem(atPath: folder)
    return info
  }

  package func abort(bucket: String, key: String, uploadId: String) throws(S3Error) {
    let folder = try uploadFolder(bucket, key, uploadId)
    do {
      try FileManager.default.removeItem(atPath: folder)
    } catch {
      throw .internalError("could not remove an upload: \(error)")
    }
  }

  // MARK: - Ranges

  /// The inclusive offsets a `Range` header asks for of an object of `size` bytes (S3 takes
  /// one range: `bytes=a-b`, `bytes=a-`, `bytes=-n`); nil for no header; `.invalidRange` when
  /// none of it lies inside the object. A header it cannot read is ignored, as S3 does.
  package static func resolve(range header: String?, size: Int) throws(S3Error)
    -> ClosedRange<Int>?
  {
    guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
    let spec = header.dropFirst("bytes=".count)
    guard let dash = spec.firstIndex(of: "-") else { return nil }
    let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
    let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
    if first.isEmpty {
      guard let suffix = Int(last), suffix >= 0 else { return nil }
      guard suffix > 0, size > 0 else { throw .invalidRange }
      return max(0, size - suffix)...(size - 1)
    }
    guard let start = Int(first), start >= 0 else { return nil }
    guard start < size else { throw .invalidRange }
    if last.isEmpty { return start...(size - 1) }
    guard let end = Int(last), end >= start else { return nil }
    return start...min(end, size - 1)
  }

  /// ETags compared without their quotes, as S3 accepts both spellings at completion.
  static func sameETag(_ a: String, _ b: String) -> Bool {
    a.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
      == b.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
  }

  /// The MD5 an ETag spells (a part's ETag is the MD5 of its bytes).
  private static func etagBytes(_ etag: String) -> [UInt8] {
    Hex.decode(etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) ?? []
  }

}
