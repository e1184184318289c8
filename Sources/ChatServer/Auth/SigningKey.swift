import Foundation
import Support

/// The secret that signs access tokens (HMAC-SHA256).
///
/// In memory mode the service draws one from its random source at start, so tokens do not
/// outlive the process. A server with a data folder keeps one in `signing-key` there, created on
/// first start with mode 0600 (`loadOrCreate(inFolder:using:)`), so tokens survive a restart.
public struct SigningKey: Sendable, Equatable {
  /// The key length this server creates: 256 bits, SHA-256's output size.
  public static let byteCount = 32

  public let bytes: [UInt8]

  /// A key from bytes; at least 32 of them.
  public init(bytes: [UInt8]) throws(SigningKeyError) {
    guard bytes.count >= Self.byteCount else { throw .tooShort(bytes.count) }
    self.bytes = bytes
  }

  /// A key of bytes already known to be long enough.
  private init(checkedBytes bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// A new key from `random`: `bytes(count:)` returns exactly `byteCount` bytes, so it needs
  /// no length check.
  public static func generate(using random: inout some RandomNumberGenerator) -> SigningKey {
    SigningKey(checkedBytes: random.bytes(count: byteCount))
  }

  /// The file name inside the data folder.
  public static let fileName = "signing-key"

  /// Reads the key kept in `folder`, or creates it: mode 0600, written to a temporary file,
  /// flushed, renamed into place and the folder flushed, so a crash never leaves half a key.
  /// An existing file readable by others is tightened to 0600; one that cannot be read is an
  /// error, never replaced (that would sign every user out).
  public static func loadOrCreate(
    inFolder folder: String, using random: inout some RandomNumberGenerator
  ) throws(SigningKeyError) -> SigningKey {
    let path = folder + "/" + fileName
    if FileManager.default.fileExists(atPath: path) {
      guard let existing = FileManager.default.contents(atPath: path) else {
        throw .cannotRead(path)
      }
      chmod(path, 0o600)
      return try SigningKey(bytes: Array(existing))
    }
    let key = generate(using: &random)
    let temporary = path + ".new"
    unlink(temporary)
    let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw .cannotWrite(path, errno: errno) }
    let written = key.bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor)
    close(descriptor)
    guard written == key.bytes.count, synced == 0, rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw .cannotWrite(path, errno: code)
    }
    let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      fsync(folderDescriptor)
      close(folderDescriptor)
    }
    return key
  }
}

/// Why no signing key could be had: fix the data folder (permissions, disk space) and restart.
public enum SigningKeyError: Error, Equatable, CustomStringConvertible {
  case tooShort(Int)
  case cannotRead(String)
  case cannotWrite(String, errno: Int32)

  public var description: String {
    switch self {
    case .tooShort(let count):
      "signing key too short: \(count) bytes, at least \(SigningKey.byteCount) needed"
    case .cannotRead(let path):
      "cannot read the signing key \(path): check its owner and permissions"
    case .cannotWrite(let path, let code):
      "cannot write the signing key \(path): \(String(cString: strerror(code)))"
    }
  }
}
