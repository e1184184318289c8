import ChatDomain
import ChatIdentifiers
import Foundation

/// The media folder beside the database (`<database>.media`, mode 0700): the full bytes of
/// my photos and documents (kept until deleted) and of others' that were downloaded (a
/// size-bounded cache). Every file is 0600. A download in progress is `<name>.part`, so a cut
/// one resumes from its size. Sign-out deletes the folder with the database.
struct MediaFolder: Sendable, Equatable {
  let path: String

  init(databasePath: String) {
    path = databasePath + ".media"
  }

  /// Why a file could not be written or read.
  struct Failure: Error, CustomStringConvertible {
    let description: String
    /// The file system had no room (`ENOSPC`, `EDQUOT`): `ChatError.deviceFull`, not a
    /// storage failure.
    var isFull = false

    /// A failure whose cause is `errno` (as a failed system call left it).
    init(description: String, errno code: Int32) {
      self.description = description
      isFull = code == ENOSPC || code == EDQUOT
    }

    /// A failure whose cause is `error` (Foundation's file errors included).
    init(description: String, error: any Error) {
      self.description = description
      isFull = Self.saysFull(error as NSError)
    }

    init(description: String) { self.description = description }

    /// Foundation reports a full disk as `NSFileWriteOutOfSpaceError`, or as the POSIX error
    /// itself, possibly under `NSUnderlyingErrorKey`.
    static func saysFull(_ error: NSError) -> Bool {
      if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteOutOfSpace.rawValue {
        return true
      }
      if error.domain == NSPOSIXErrorDomain, error.code == Int(ENOSPC) || error.code == Int(EDQUOT)
      {
        return true
      }
      guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError else { return false }
      return saysFull(underlying)
    }
  }

  func file(_ name: String) -> String { path + "/" + name }

  /// The start of the name of one message's file: its whole key, conversation, sender and
  /// client message ID, joined by `@`, which neither kind of ID may hold. A client message ID
  /// alone is not unique (any sender may reuse one someone else's message shows), so it must
  /// not decide whose bytes a file is. At most 128 + 64 + 36 + 2 bytes, all URL-safe.
  static func baseName(_ conversation: ConversationID, _ sender: UserID, _ id: MessageID)
    -> String
  {
    "\(conversation.rawValue)@\(sender.rawValue)@\(id.rawValue)"
  }

  /// Creates the folder (0700) when missing.
  func create() throws(Failure) {
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw Failure(description: "cannot create the media folder: \(error)", error: error)
    }
  }

  /// Writes `bytes` as `name` (0600), whole or not at all.
  func write(_ bytes: [UInt8], as name: String) throws(Failure) {
    try create()
    let temporary = file(name + ".tmp")
    let output = try openForWriting(temporary, truncating: true)
    do {
      defer { try? output.close() }
      try output.write(contentsOf: bytes)
      try output.synchronize()
    } catch {
      unlink(temporary)
      throw Failure(description: "cannot write to the media folder: \(error)", error: error)
    }
    try finish(temporary, as: name)
  }

  /// Copies the file at `source` in as `name` (0600), in pieces, whole or not at all.
  func copy(_ source: String, as name: String) throws(Failure) {
    try create()
    guard let input = FileHandle(forReadingAtPath: source) else {
      throw Failure(description: "cannot read \(source)")
    }
    defer { try? input.close() }
    let temporary = file(name + ".tmp")
    let output = try openForWriting(temporary, truncating: true)
    do {
      defer { try? output.close() }
      while let piece = try input.read(upToCount: 1 << 20), !piece.isEmpty {
        try output.write(contentsOf: piece)
      }
      try output.synchronize()
    } catch {
      unlink(temporary)
      throw Failure(description: "cannot copy \(source): \(error)", error: error)
    }
    try finish(temporary, as: name)
  }

  /// Renames the finished `temporary` (a path) to `name`, or removes it.
  private func finish(_ temporary: String, as name: String) throws(Failure) {
    guard rename(temporary, file(name)) == 0 else {
      let code = errno
      unlink(temporary)
      throw Failure(description: "cannot write to the media folder (errno \(code))", errno: code)
    }
  }

  /// `count` bytes of `name` from `offset` (fewer at its end).
  func read(_ name: String, offset: Int, count: Int) throws(Failure) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: file(name)) else {
      throw Failure(description: "the media file is gone from this device")
    }
    defer { try? handle.close() }
    do {
      try handle.seek(toOffset: UInt64(offset))
      return [UInt8](try handle.read(upToCount: count) ?? Data())
    } catch {
      throw Failure(description: "cannot read the media file: \(error)")
    }
  }

  /// Appends to `name` (created 0600 when missing).
  func append(_ bytes: [UInt8], to name: String) throws(Failure) {
    try create()
    let handle = try openForWriting(file(name), truncating: false)
    defer { try? handle.close() }
    do {
      try handle.seekToEnd()
      try handle.write(contentsOf: bytes)
    } catch {
      throw Failure(description: "cannot write to the media folder: \(error)", error: error)
    }
  }

  /// The size of `name`, nil when it does not exist.
  func size(of name: String) -> Int? {
    var info = stat()
    guard stat(file(name), &info) == 0 else { return nil }
    return Int(info.st_size)
  }

  /// Renames `name` to `other`, its bytes synced first: a power loss cannot leave a file under
  /// its final name shorter than the bytes a row says it holds.
  func move(_ name: String, to other: String) throws(Failure) {
    let descriptor = open(file(name), O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      throw Failure(description: "cannot read the media file (errno \(code))", errno: code)
    }
    let synced = fsync(descriptor) == 0
    let code = errno
    close(descriptor)
    guard synced else {
      throw Failure(description: "cannot write to the media folder (errno \(code))", errno: code)
    }
    guard rename(file(name), file(other)) == 0 else {
      throw Failure(description: "cannot rename in the media folder (errno \(errno))")
    }
  }

  func remove(_ name: String) {
    unlink(file(name))
  }

  /// Every file in the folder.
  func names() -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }

  /// Deletes the folder and everything in it.
  func removeAll() throws(Failure) {
    guard FileManager.default.fileExists(atPath: path) else { return }
    do {
      try FileManager.default.removeItem(atPath: path)
    } catch {
      throw Failure(description: "cannot delete the media folder: \(error)")
    }
  }

  private func openForWriting(_ path: String, truncating: Bool) throws(Failure) -> FileHandle {
    let descriptor = open(
      path, O_WRONLY | O_CREAT | (truncating ? O_TRUNC : 0) | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      throw Failure(description: "cannot write to the media folder (errno \(code))", errno: code)
    }
    return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
  }
}
