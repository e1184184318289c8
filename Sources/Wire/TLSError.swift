/// Why TLS could not be set up, or why a TLS handshake failed; each case says what to do.
///
/// The first group comes from ``TLSContext/init(configuration:)`` (a server's start, a client's
/// configuration): fix the files and start again. The second comes from a handshake: on the
/// client, the server's certificate did not verify or the server does not speak TLS; on the
/// server, the peer refused us, stalled, or spoke plaintext. Retrying does not help with
/// either group until something is fixed, except ``handshakeTimedOut`` and
/// ``closedDuringHandshake``.
///
/// ## Topics
/// - Setting up: ``unreadableFile(path:reason:)``, ``invalidCertificate(path:reason:)``,
///   ``invalidPrivateKey(path:reason:)``, ``keyDoesNotMatchCertificate(certificate:key:)``,
///   ``ownCertificateExpired(path:notAfter:)``, ``ownCertificateNotYetValid(path:notBefore:)``
/// - The peer's certificate: ``certificateExpired(_:)``, ``certificateNotYetValid(_:)``,
///   ``untrustedCertificate(_:)``, ``hostnameMismatch(_:)``, ``certificateRejected(_:)``
/// - The handshake: ``rejectedByPeer(_:)``, ``unsupportedProtocolVersion(_:)``,
///   ``plaintextPeer``, ``handshakeTimedOut``, ``closedDuringHandshake``,
///   ``handshakeFailed(_:)``
public enum TLSError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A certificate, key or CA file could not be read (missing, not permitted).
  case unreadableFile(path: String, reason: String)
  /// The file holds no PEM certificate OpenSSL can use.
  case invalidCertificate(path: String, reason: String)
  /// The file holds no usable PEM private key. An encrypted key counts as unusable: a server
  /// cannot ask for a passphrase, so give it the key unencrypted (mode 0600).
  case invalidPrivateKey(path: String, reason: String)
  /// The private key does not belong to the first certificate of the chain file.
  case keyDoesNotMatchCertificate(certificate: String, key: String)
  /// This server's own certificate has expired: renew it.
  case ownCertificateExpired(path: String, notAfter: String)
  /// This server's own certificate is not valid yet (or this machine's clock is wrong).
  case ownCertificateNotYetValid(path: String, notBefore: String)

  /// The certificate the peer presented (or one of its chain) has expired; the detail names it.
  case certificateExpired(String)
  /// The peer's certificate is not valid yet: its clock or ours is wrong.
  case certificateNotYetValid(String)
  /// The peer's certificate is self-signed or signed by a CA this side does not trust: give
  /// the CA with `--ca-file` (or `SSL_CERT_FILE`), or install a certificate from a known CA.
  case untrustedCertificate(String)
  /// The peer's certificate is not for the host name (or IP address) connected to.
  case hostnameMismatch(String)
  /// The peer's certificate failed verification for another reason (OpenSSL's).
  case certificateRejected(String)
  /// The peer ended the handshake with this alert: usually it did not trust our certificate.
  case rejectedByPeer(String)
  /// No TLS version both sides accept: this side requires TLS 1.2 or later.
  case unsupportedProtocolVersion(String)
  /// The peer does not speak TLS: a plaintext HTTP client on a TLS port, or a TLS client
  /// connected to a plaintext server (use `http://` / `ws://`, or the right port).
  case plaintextPeer
  /// The handshake did not finish in time: retry later.
  case handshakeTimedOut
  /// The peer closed the connection during the handshake: retry later.
  case closedDuringHandshake
  /// Any other handshake failure, with OpenSSL's reason.
  case handshakeFailed(String)
  /// ``LoopbackCertificate`` could not make its key or certificate (OpenSSL's reason).
  case cannotMakeCertificate(String)

  /// Whether the same handshake may succeed later with nothing fixed: a stall or a cut
  /// connection, not a certificate, a protocol version or a plaintext peer.
  public var isTemporary: Bool {
    switch self {
    case .handshakeTimedOut, .closedDuringHandshake: true
    default: false
    }
  }

  /// A short stable name for logs and metrics (`hostname_mismatch`, `handshake_timed_out`, …).
  public var code: String {
    switch self {
    case .unreadableFile: "unreadable_file"
    case .invalidCertificate: "invalid_certificate"
    case .invalidPrivateKey: "invalid_private_key"
    case .keyDoesNotMatchCertificate: "key_does_not_match_certificate"
    case .ownCertificateExpired: "own_certificate_expired"
    case .ownCertificateNotYetValid: "own_certificate_not_yet_valid"
    case .certificateExpired: "certificate_expired"
    case .certificateNotYetValid: "certificate_not_yet_valid"
    case .untrustedCertificate: "untrusted_certificate"
    case .hostnameMismatch: "hostname_mismatch"
    case .certificateRejected: "certificate_rejected"
    case .rejectedByPeer: "rejected_by_peer"
    case .unsupportedProtocolVersion: "unsupported_protocol_version"
    case .plaintextPeer: "plaintext_peer"
    case .handshakeTimedOut: "handshake_timed_out"
    case .closedDuringHandshake: "closed_during_handshake"
    case .handshakeFailed: "handshake_failed"
    case .cannotMakeCertificate: "cannot_make_certificate"
    }
  }

  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
    case .invalidCertificate(let path, let reason):
      "\(path) holds no usable PEM certificate: \(reason)"
    case .invalidPrivateKey(let path, let reason):
      "\(path) holds no usable PEM private key (an encrypted key cannot be used): \(reason)"
    case .keyDoesNotMatchCertificate(let certificate, let key):
      "the private key \(key) does not belong to the certificate \(certificate)"
    case .ownCertificateExpired(let path, let notAfter):
      "the certificate \(path) expired on \(notAfter): renew it"
    case .ownCertificateNotYetValid(let path, let notBefore):
      "the certificate \(path) is not valid before \(notBefore) (check the clock)"
    case .certificateExpired(let detail):
      "TLS: the peer's certificate has expired (\(detail))"
    case .certificateNotYetValid(let detail):
      "TLS: the peer's certificate is not valid yet (\(detail)); check both clocks"
    case .untrustedCertificate(let detail):
      "TLS: the peer's certificate is not trusted (\(detail)); give its CA with --ca-file "
        + "or SSL_CERT_FILE"
    case .hostnameMismatch(let name):
      "TLS: the peer's certificate is not valid for \(name)"
    case .certificateRejected(let detail): "TLS: the peer's certificate was rejected: \(detail)"
    case .rejectedByPeer(let alert): "TLS: the peer refused the handshake: \(alert)"
    case .unsupportedProtocolVersion(let detail):
      "TLS: no protocol version both sides accept (TLS 1.2 or later is required): \(detail)"
    case .plaintextPeer: "TLS: the peer does not speak TLS (plaintext HTTP?)"
    case .handshakeTimedOut: "TLS: the handshake timed out"
    case .closedDuringHandshake: "TLS: the peer closed the connection during the handshake"
    case .handshakeFailed(let reason): "TLS: the handshake failed: \(reason)"
    case .cannotMakeCertificate(let reason): "cannot make a loopback certificate: \(reason)"
    }
  }
}
