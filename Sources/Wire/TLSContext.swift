import CTLS
import Foundation
import Glibc

/// An OpenSSL context made from a ``TLSConfiguration``, checked once and shared by every
/// connection that uses it (make one per server or per client configuration, not per
/// connection).
///
/// A server's context refuses to be made from files that would fail every handshake, with the
/// reason: an unreadable file, no PEM certificate, no usable key (an encrypted one included),
/// a key that is not the certificate's, a certificate that has expired or is not valid yet. A
/// client's context fails for an unreadable CA file (`SSL_CERT_FILE` too, when set) or one with
/// no certificate in it.
///
/// Every context accepts TLS 1.2 and 1.3 only (or 1.3 only), never renegotiates, never
/// compresses. A client context always verifies the server's chain and, per connection, its
/// host name.
public final class TLSContext: @unchecked Sendable {
  // @unchecked: the SSL_CTX is configured in `init` and only read afterwards (SSL_new, from any
  // loop's thread), which OpenSSL allows; it locks the reference count and session cache itself.
  public let configuration: TLSConfiguration
  let handle: OpaquePointer

  /// Makes the context; throws what is wrong with the files, naming them.
  public init(configuration: TLSConfiguration) throws(TLSError) {
    ERR_clear_error()
    let method = configuration.role == .server ? TLS_server_method() : TLS_client_method()
    guard let handle = SSL_CTX_new(method) else {
      throw .handshakeFailed("cannot make an OpenSSL context: \(openSSLErrorText())")
    }
    self.handle = handle
    self.configuration = configuration
    let minimum = configuration.minimumVersion == .tls13 ? TLS1_3_VERSION : TLS1_2_VERSION
    guard ctls_set_minimum_version(handle, minimum) == 1 else {
      throw .handshakeFailed("cannot set the minimum version: \(openSSLErrorText())")
    }
    ctls_set_safe_options(handle)
    ctls_release_idle_buffers(handle)
    switch configuration.role {
    case .server:
      try loadIdentity()
    case .client:
      try loadTrust()
      SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
    }
  }

  deinit {
    SSL_CTX_free(handle)
  }

  /// The context `wss://` uses when given none: the system trust store (or `SSL_CERT_FILE`),
  /// made on first use.
  private static let defaultClient = Result { () throws(TLSError) -> TLSContext in
    try TLSContext(configuration: .makeClientConfiguration())
  }

  /// `context`, or when nil the default client context.
  static func client(_ context: TLSContext?) throws(TLSError) -> TLSContext {
    if let context { return context }
    return try defaultClient.get()
  }

  private func loadIdentity() throws(TLSError) {
    guard let chainPath = configuration.certificateChainFile else {
      throw .invalidCertificate(path: "", reason: "a server needs a certificate chain file")
    }
    guard let keyPath = configuration.privateKeyFile else {
      throw .invalidPrivateKey(path: "", reason: "a server needs a private key file")
    }
    let leaf = try Self.readCertificate(chainPath)
    defer { X509_free(leaf) }
    let key = try Self.readPrivateKey(keyPath)
    defer { EVP_PKEY_free(key) }
    guard X509_check_private_key(leaf, key) == 1 else {
      ERR_clear_error()
      throw .keyDoesNotMatchCertificate(certificate: chainPath, key: keyPath)
    }
    if let notAfter = X509_get0_notAfter(leaf), X509_cmp_current_time(notAfter) < 0 {
      throw .ownCertificateExpired(path: chainPath, notAfter: timeText(notAfter))
    }
    if let notBefore = X509_get0_notBefore(leaf), X509_cmp_current_time(notBefore) > 0 {
      throw .ownCertificateNotYetValid(path: chainPath, notBefore: timeText(notBefore))
    }
    guard SSL_CTX_use_certificate_chain_file(handle, chainPath) == 1 else {
      throw .invalidCertificate(path: chainPath, reason: openSSLErrorText())
    }
    guard SSL_CTX_use_PrivateKey(handle, key) == 1, SSL_CTX_check_private_key(handle) == 1 else {
      ERR_clear_error()
      throw .keyDoesNotMatchCertificate(certificate: chainPath, key: keyPath)
    }
  }

  private func loadTrust() throws(TLSError) {
    switch configuration.trustRoots {
    case .system:
      // OpenSSL reads SSL_CERT_FILE itself, and silently trusts nothing when it is missing:
      // say so instead of failing every handshake later.
      if let file = getenv("SSL_CERT_FILE").map({ String(cString: $0) }), !file.isEmpty {
        try Self.checkReadable(file, name: "\(file) (SSL_CERT_FILE)")
      }
      guard SSL_CTX_set_default_verify_paths(handle) == 1 else {
        throw .invalidCertificate(path: "the system store", reason: openSSLErrorText())
      }
    case .file(let path):
      try Self.checkReadable(path)
      guard SSL_CTX_load_verify_locations(handle, path, nil) == 1 else {
        throw .invalidCertificate(path: path, reason: openSSLErrorText())
      }
    }
  }

  private static func checkReadable(_ path: String, name: String? = nil) throws(TLSError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw .unreadableFile(path: name ?? path, reason: String(cString: strerror(errno)))
    }
    close(fd)
  }

  /// The first certificate of a PEM file (the leaf of a chain file).
  private static func readCertificate(_ path: String) throws(TLSError) -> OpaquePointer {
    try checkReadable(path)
    ERR_clear_error()
    guard let bio = BIO_new_file(path, "r") else {
      throw .unreadableFile(path: path, reason: openSSLErrorText())
    }
    defer { BIO_free(bio) }
    guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
      throw .invalidCertificate(path: path, reason: openSSLErrorText())
    }
    return certificate
  }

  private static func readPrivateKey(_ path: String) throws(TLSError) -> OpaquePointer {
    try checkReadable(path)
    ERR_clear_error()
    guard let bio = BIO_new_file(path, "r") else {
      throw .unreadableFile(path: path, reason: openSSLErrorText())
    }
    defer { BIO_free(bio) }
    guard let key = ctls_read_private_key(bio) else {
      // OpenSSL 3's decoders report these two as "unsupported" and a cipher error.
      let reason = openSSLErrorText()
      let text = String(
        decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
      if !text.contains("-----BEGIN ") {
        throw .invalidPrivateKey(path: path, reason: "no PEM block (-----BEGIN …-----) in it")
      }
      if text.contains("ENCRYPTED") {
        throw .invalidPrivateKey(path: path, reason: "it is encrypted")
      }
      throw .invalidPrivateKey(path: path, reason: reason)
    }
    return key
  }
}

/// The reason of the newest error in this thread's OpenSSL error queue, which is then emptied
/// (the queue is per thread, and a loop's thread serves many connections).
func openSSLErrorText() -> String {
  let error = ERR_peek_last_error()
  ERR_clear_error()
  guard error != 0 else { return "no reason given" }
  if ctls_error_library(error) == ERR_LIB_PEM && ctls_error_reason(error) == PEM_R_NO_START_LINE {
    return "no PEM block (-----BEGIN …-----) in it"
  }
  if ctls_error_library(error) == ERR_LIB_PEM
    && ctls_error_reason(error) == PEM_R_BAD_PASSWORD_READ
  {
    return "it is encrypted"
  }
  guard let reason = ERR_reason_error_string(error) else { return "OpenSSL error \(error)" }
  return String(cString: reason)
}

/// An ASN.1 time as OpenSSL prints it ("Jan  2 00:00:00 2020 GMT").
func timeText(_ time: UnsafePointer<ASN1_TIME>) -> String {
  guard let bio = BIO_new(BIO_s_mem()) else { return "?" }
  defer { BIO_free(bio) }
  guard ASN1_TIME_print(bio, time) == 1 else { return "?" }
  var bytes = [UInt8](repeating: 0, count: 64)
  let count = BIO_read(bio, &bytes, Int32(bytes.count))
  return String(decoding: bytes.prefix(Int(max(0, count))), as: UTF8.self)
}
