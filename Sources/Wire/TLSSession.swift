import CTLS
import Glibc

/// One connection's TLS: an OpenSSL `SSL` over two memory BIOs, so it never touches the
/// socket. The ``TCPConnection`` feeds it the ciphertext it reads and sends what it produces;
/// the handler sees only plaintext. Used only on its connection's loop.
///
/// Memory BIOs never fill, so `SSL_write` always takes everything, and `SSL_read` or the
/// handshake can only want more input (`WANT_READ`): what they write goes to the output BIO,
/// which the connection empties after every call.
final class TLSSession {
  enum State: Equatable {
    case handshaking
    case established
    /// The peer sent close_notify; this side may still write.
    case peerClosed
    /// This side sent close_notify.
    case shutDown
    case failed
  }

  enum HandshakeStep {
    case pending
    case done
    case failed(TLSError)
  }

  enum ReadResult {
    case bytes(Int)
    case needMore
    case closeNotify
    case failed
  }

  let isClient: Bool
  /// The name the server's certificate must match (the client's only).
  let serverName: String?
  private(set) var state = State.handshaking
  private let ssl: OpaquePointer
  /// The peer's ciphertext, waiting for OpenSSL.
  private let input: OpaquePointer
  /// OpenSSL's ciphertext for the peer, waiting to be sent.
  private let output: OpaquePointer
  private var receivedAnything = false

  /// A session for `context`'s role. A client verifies the server's certificate against
  /// `serverName`: a DNS name (also sent as SNI) or an IP address (matched against the
  /// certificate's IP addresses; RFC 6066 sends no SNI for an address).
  init(context: TLSContext, serverName: String?) throws(TLSError) {
    ERR_clear_error()
    guard let ssl = SSL_new(context.handle) else {
      throw .handshakeFailed("cannot make an OpenSSL session: \(openSSLErrorText())")
    }
    guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
      SSL_free(ssl)
      throw .handshakeFailed("cannot make the memory buffers: \(openSSLErrorText())")
    }
    ctls_set_mem_eof_retry(input)
    ctls_set_mem_eof_retry(output)
    // The session owns both BIOs from here on.
    SSL_set_bio(ssl, input, output)
    self.ssl = ssl
    self.input = input
    self.output = output
    isClient = context.configuration.role == .client
    self.serverName = serverName
    guard isClient else {
      SSL_set_accept_state(ssl)
      return
    }
    SSL_set_connect_state(ssl)
    guard let serverName, !serverName.isEmpty else {
      throw .handshakeFailed("a client needs the server's host name to verify its certificate")
    }
    if Self.isIPAddress(serverName) {
      guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
        throw .handshakeFailed("cannot verify \(serverName): \(openSSLErrorText())")
      }
    } else {
      SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
      guard SSL_set1_host(ssl, serverName) == 1, ctls_set_server_name(ssl, serverName) == 1
      else {
        throw .handshakeFailed("cannot verify \(serverName): \(openSSLErrorText())")
      }
    }
  }

  deinit {
    SSL_free(ssl)
  }

  /// Takes ciphertext from the peer. Fails at once for a peer that speaks plaintext: every TLS
  /// record starts with its type (20–23, a control character), while an HTTP request line, a
  /// status line or an HTTP/0.9 error page starts with printable ASCII.
  func feed(_ bytes: UnsafeRawBufferPointer) -> TLSError? {
    if !receivedAnything, let first = bytes.first {
      receivedAnything = true
      if state == .handshaking && (0x20...0x7E).contains(first) {
        state = .failed
        return .plaintextPeer
      }
    }
    var offset = 0
    while offset < bytes.count {
      let written = BIO_write(
        input, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
      guard written > 0 else {
        state = .failed
        return .handshakeFailed("cannot buffer the peer's bytes")
      }
      offset += Int(written)
    }
    return nil
  }

  /// Runs the handshake as far as the input allows.
  func handshake() -> HandshakeStep {
    ERR_clear_error()
    let result = SSL_do_handshake(ssl)
    if result == 1 {
      state = .established
      return .done
    }
    let code = SSL_get_error(ssl, result)
    if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return .pending }
    state = .failed
    return .failed(handshakeFailure())
  }

  /// Decrypts into `buffer`.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
    ERR_clear_error()
    let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
    if count > 0 { return .bytes(Int(count)) }
    switch SSL_get_error(ssl, count) {
    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
      return .needMore
    case SSL_ERROR_ZERO_RETURN:
      if state == .established { state = .peerClosed }
      return .closeNotify
    default:
      ERR_clear_error()
      state = .failed
      return .failed
    }
  }

  /// Encrypts `bytes` into the output; false when the session has failed.
  func write(_ bytes: [UInt8]) -> Bool {
    ERR_clear_error()
    let written = bytes.withUnsafeBytes {
      SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count))
    }
    guard written == bytes.count else {
      ERR_clear_error()
      state = .failed
      return false
    }
    return true
  }

  /// Queues close_notify (once, and only on a session that finished its handshake and has not
  /// failed: OpenSSL forbids it otherwise).
  func shutdown() {
    guard state == .established || state == .peerClosed else { return }
    ERR_clear_error()
    _ = SSL_shutdown(ssl)
    ERR_clear_error()
    state = .shutDown
  }

  func markFailed() {
    state = .failed
  }

  /// The ciphertext waiting for the peer, taken out of the output.
  func takeOutput() -> [UInt8] {
    let pending = Int(BIO_ctrl_pending(output))
    guard pending > 0 else { return [] }
    return [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
      count = Int(max(0, BIO_read(output, buffer.baseAddress, Int32(clamping: pending))))
    }
  }

  /// What went wrong, from the verification result (client) and OpenSSL's error queue.
  private func handshakeFailure() -> TLSError {
    defer { ERR_clear_error() }
    if isClient {
      let verification = SSL_get_verify_result(ssl)
      if verification != Int(X509_V_OK) { return verificationFailure(Int32(verification)) }
    }
    let error = ERR_peek_last_error()
    guard error != 0 else { return .handshakeFailed("the peer broke the handshake") }
    let reason = ctls_error_reason(error)
    if ctls_error_library(error) == ERR_LIB_SSL {
      if reason > SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256 {
        let alert = reason - SSL_AD_REASON_OFFSET
        let text = String(cString: SSL_alert_desc_string_long(alert))
        if alert == SSL_AD_PROTOCOL_VERSION {
          return .unsupportedProtocolVersion("the peer: \(text)")
        }
        return .rejectedByPeer(text)
      }
      switch reason {
      case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_VERSION_TOO_LOW,
        SSL_R_WRONG_SSL_VERSION:
        return .unsupportedProtocolVersion(openSSLErrorText())
      case SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST:
        return .plaintextPeer
      default:
        break
      }
    }
    return .handshakeFailed(openSSLErrorText())
  }

  private func verificationFailure(_ code: Int32) -> TLSError {
    let text = String(cString: X509_verify_cert_error_string(Int(code)))
    switch code {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return .certificateExpired(text + leafValidity())
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return .certificateNotYetValid(text + leafValidity())
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
      X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
      X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return .untrustedCertificate(text)
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
      return .hostnameMismatch(serverName ?? "")
    default:
      return .certificateRejected(text)
    }
  }

  /// "; valid from … until …" for the peer's own certificate, when it sent one.
  private func leafValidity() -> String {
    guard let leaf = ctls_presented_certificate(ssl), let notBefore = X509_get0_notBefore(leaf),
      let notAfter = X509_get0_notAfter(leaf)
    else { return "" }
    return "; valid from \(timeText(notBefore)) until \(timeText(notAfter))"
  }

  private static func isIPAddress(_ text: String) -> Bool {
    var address = in6_addr()
    return inet_pton(AF_INET, text, &address) == 1 || inet_pton(AF_INET6, text, &address) == 1
  }
}
