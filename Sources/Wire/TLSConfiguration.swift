/// What a ``TLSContext`` is made of: a server's certificate chain and key, or a client's trust.
///
/// Shaped like swift-nio-ssl's `TLSConfiguration`, with fewer knobs. There is deliberately no
/// way to turn certificate or host name verification off: a client that must talk to a server
/// with a private CA (a test server among them) trusts that CA with
/// ``TrustRoots/file(_:)``.
///
/// ```swift
/// let server = try TLSContext(
///   configuration: .makeServerConfiguration(
///     certificateChainFile: "/etc/chat/fullchain.pem", privateKeyFile: "/etc/chat/key.pem"))
/// let client = try TLSContext(configuration: .makeClientConfiguration(trustRoots: .system))
/// ```
public struct TLSConfiguration: Sendable, Hashable {
  /// Which end of the handshake a context serves.
  public enum Role: Sendable, Hashable {
    case server
    case client
  }

  /// The CA certificates a client verifies servers with.
  public enum TrustRoots: Sendable, Hashable {
    /// OpenSSL's default locations: the file named by `SSL_CERT_FILE` and the folder named by
    /// `SSL_CERT_DIR` when set (OpenSSL's convention), else the system store
    /// (`/etc/ssl/certs` on Debian).
    case system
    /// Only the CA certificates in this PEM file (a bundle of one or more); the system store
    /// is not consulted.
    case file(String)
  }

  /// The oldest protocol version accepted; nothing older than TLS 1.2 can be chosen.
  public enum Version: Sendable, Hashable {
    case tls12
    case tls13
  }

  public var role: Role
  /// A server's PEM file: its certificate first, then the intermediates (a "full chain").
  public var certificateChainFile: String?
  /// A server's PEM private key (unencrypted: the server cannot ask for a passphrase).
  public var privateKeyFile: String?
  /// What a client trusts; unused by a server (which asks for no client certificate).
  public var trustRoots: TrustRoots
  public var minimumVersion: Version

  /// A server presenting the certificate chain in `certificateChainFile` (PEM, leaf first) with
  /// the key in `privateKeyFile` (PEM); TLS 1.2 and 1.3.
  public static func makeServerConfiguration(certificateChainFile: String, privateKeyFile: String)
    -> TLSConfiguration
  {
    TLSConfiguration(
      role: .server, certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile,
      trustRoots: .system, minimumVersion: .tls12)
  }

  /// A client that verifies the server's certificate chain against `trustRoots` and the host
  /// name it connects to against the certificate; TLS 1.2 and 1.3.
  public static func makeClientConfiguration(trustRoots: TrustRoots = .system)
    -> TLSConfiguration
  {
    TLSConfiguration(
      role: .client, certificateChainFile: nil, privateKeyFile: nil, trustRoots: trustRoots,
      minimumVersion: .tls12)
  }
}
