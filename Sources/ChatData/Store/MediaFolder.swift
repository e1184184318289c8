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
      throw Failure(description: "cannot create the media folder: \(error)")
    }
  }

  /// Writes `bytes` as `name` (0600), whole or not at all.
  func write(_ bytes: [UInt8], as name: String) throws(Failure) {
    try create()
    let temporary = file(name + ".tmp")
    guard
      FileManager.default.createFile(
        atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
    else { throw Failure(description: "cannot write to the media folder") }
    guard rename(temporary, file(name)) == 0 else {
      unlink(temporary)
      throw Failure(description: "cannot write to the media folder (errno \(errno))")
    }
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
      throw Failure(description: "cannot copy \(source): \(error)")
    }
    guard rename(temporary, file(name)) == 0 else {
      unlink(temporary)
      throw Failure(description: "cannot write to the media folder (errno \(errno))")
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
      throw Failure(description: "cannot write to the media folder: \(error)")
    }
  }

  /// The size of `name`, nil when it does not exist.
  func size(of name: String) -> Int? {
    var info = stat()
    guard stat(file(name), &info) == 0 else { return nil }
    return Int(info.st_size)
  }

  func move(_ name: String, to other: String) throws(Failure) {
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
      throw Failure(description: "cannot write to the media folder (errno \(errno))")
    }
    return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
  }
}
