import CTLS
import Foundation
import Glibc

/// A self-signed certificate for `localhost`, `127.0.0.1` and `::1`, made in memory with a new
/// EC P-256 key, for a server that only ever runs on this machine (`chat demo --tls`): the
/// server presents it, and its clients trust exactly it (``clientContext()``), so verification
/// stays on. Valid from an hour ago for seven days. Not for a server anyone else reaches.
public struct LoopbackCertificate: Sendable {
  /// The certificate, PEM.
  public let certificateFile: String
  /// Its private key, PEM, mode 0600.
  public let privateKeyFile: String

  /// Makes the certificate and its key and writes them into `folder` (which must exist) as
  /// `loopback.pem` and `loopback.key`, both mode 0600.
  public static func make(inFolder folder: String) throws(TLSError) -> LoopbackCertificate {
    ERR_clear_error()
    guard let key = ctls_generate_p256_key() else {
      throw .cannotMakeCertificate("\(openSSLErrorText()) (make a key)")
    }
    defer { EVP_PKEY_free(key) }
    guard let certificate = X509_new() else {
      throw .cannotMakeCertificate("\(openSSLErrorText()) (make a certificate)")
    }
    defer { X509_free(certificate) }
    guard X509_set_version(certificate, 2) == 1,
      ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int(Int32.max))) == 1,
      X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
      X509_gmtime_adj(X509_getm_notAfter(certificate), 7 * 86_400) != nil,
      X509_set_pubkey(certificate, key) == 1,
      let name = X509_get_subject_name(certificate),
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "chat loopback", -1, -1, 0) == 1,
      X509_set_issuer_name(certificate, name) == 1
    else { throw .cannotMakeCertificate("\(openSSLErrorText()) (fill in the certificate)") }
    var context = X509V3_CTX()
    X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
    let extensions: [(Int32, String)] = [
      (NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"),
      (NID_basic_constraints, "critical,CA:FALSE"),
      (NID_key_usage, "critical,digitalSignature"),
      (NID_ext_key_usage, "serverAuth"),
    ]
    for (nid, value) in extensions {
      guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
        throw .cannotMakeCertificate("\(openSSLErrorText()) (add \(value))")
      }
      defer { X509_EXTENSION_free(made) }
      guard X509_add_ext(certificate, made, -1) == 1 else {
        throw .cannotMakeCertificate("\(openSSLErrorText()) (add \(value))")
      }
    }
    guard X509_sign(certificate, key, EVP_sha256()) > 0 else {
      throw .cannotMakeCertificate("\(openSSLErrorText()) (sign the certificate)")
    }
    let result = LoopbackCertificate(
      certificateFile: folder + "/loopback.pem", privateKeyFile: folder + "/loopback.key")
    try write(pem { PEM_write_bio_X509($0, certificate) }, to: result.certificateFile)
    try write(
      pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }, to: result.privateKeyFile)
    return result
  }

  /// The server's context: this certificate and its key.
  public func serverContext() throws(TLSError) -> TLSContext {
    try TLSContext(
      configuration: .makeServerConfiguration(
        certificateChainFile: certificateFile, privateKeyFile: privateKeyFile))
  }

  /// A client context that trusts this certificate and nothing else.
  public func clientContext() throws(TLSError) -> TLSContext {
    try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(certificateFile)))
  }

  /// What `write` puts into a memory BIO, as bytes.
  private static func pem(_ write: (OpaquePointer) -> Int32) throws(TLSError) -> [UInt8] {
    guard let bio = BIO_new(BIO_s_mem()) else {
      throw .cannotMakeCertificate("\(openSSLErrorText()) (make a buffer)")
    }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw .cannotMakeCertificate("\(openSSLErrorText()) (write PEM)") }
    var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
    let count = BIO_read(bio, &bytes, Int32(bytes.count))
    return Array(bytes.prefix(Int(max(0, count))))
  }

  /// Writes a new file created with mode 0600 (never readable by others, not even for a
  /// moment); an existing file is refused.
  private static func write(_ bytes: [UInt8], to path: String) throws(TLSError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
    }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      guard count > 0 else {
        throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
      }
      written += count
    }
  }
}
