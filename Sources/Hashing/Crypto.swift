import CCrypto
import Foundation

/// The few OpenSSL primitives the server side needs: digests and MACs for tokens and refresh
/// tokens (`ChatServer`), for S3's Signature V4 and its ETags (`ObjectStorage`).
package enum Crypto {
  package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    bytes.withUnsafeBufferPointer { input in
      _ = SHA256(input.baseAddress, input.count, &digest)
    }
    return digest
  }

  /// MD5, for S3's ETags only (what S3 clients expect of a single PUT's ETag), never security.
  package static func md5(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    bytes.withUnsafeBufferPointer { input in
      _ = EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_md5(), nil)
    }
    return Array(digest.prefix(Int(length)))
  }

  package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    key.withUnsafeBufferPointer { key in
      message.withUnsafeBufferPointer { message in
        _ = HMAC(
          EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count,
          &digest, &length)
      }
    }
    return Array(digest.prefix(Int(length)))
  }

  /// Equal lengths and equal bytes, in time that depends on the length only.
  package static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard !lhs.isEmpty else { return true }
    return lhs.withUnsafeBytes { lhs in
      rhs.withUnsafeBytes { rhs in
        CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
      }
    }
  }

}

/// SHA-256 over bytes that come in pieces (a file read a chunk at a time), so a 100 MiB
/// upload is hashed without holding it whole.
package final class SHA256Hasher {
  private let context: OpaquePointer

  package init() {
    // The force is safe: allocation of a digest context fails only when memory is exhausted.
    context = EVP_MD_CTX_new()!
    EVP_DigestInit_ex(context, EVP_sha256(), nil)
  }

  deinit { EVP_MD_CTX_free(context) }

  package func update(_ bytes: some ContiguousBytes) {
    bytes.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
  }

  /// The digest of everything given; the hasher is spent after this.
  package func finish() -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &digest, &length)
    return Array(digest.prefix(Int(length)))
  }
}

extension SHA256Hasher {
  /// The size and SHA-256 of the file at `path`, read a mebibyte at a time; nil when it cannot
  /// be opened. A read that fails half-way throws.
  package static func file(at path: String) throws -> (byteCount: Int, digest: [UInt8])? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let hasher = SHA256Hasher()
    var size = 0
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      hasher.update(chunk)
      size += chunk.count
    }
    return (size, hasher.finish())
  }
}
