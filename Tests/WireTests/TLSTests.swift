import Foundation
import Glibc
import TLSTestSupport
import Testing

@testable import Wire

/// TLS inside the connection: our server and our client over loopback, with certificates made
/// at test time, and `openssl s_server` where our server cannot play the part (it refuses to
/// start with an expired certificate, and never speaks TLS 1.1).
@Suite(.timeLimit(.minutes(2)), .testCertificates)
struct TLSTests {
  @Test(arguments: ["localhost", "127.0.0.1"])
  func aWebSocketEchoesOverTLSWithOurClientAndServer(host: String) async throws {
    let server = try TLSTestServer()
    let reply = try await echoOverTLS(
      "wss://\(host):\(server.port)/echo", client: TestCertificates.client(), text: "κόσμε")
    #expect(reply == "echo: κόσμε")
    await server.server.shutdown()
  }

  /// A message of 900 KB crosses the TLS layer as many records, both ways, whole.
  @Test func aLargeMessageCrossesManyRecordsWhole() async throws {
    let server = try TLSTestServer()
    let text = String(repeating: "é", count: 450_000)
    let reply = try await echoOverTLS(
      "wss://localhost:\(server.port)/echo", client: TestCertificates.client(), text: text)
    #expect(reply == "echo: " + text)
    await server.server.shutdown()
  }

  /// The HTTP part of the server answers through TLS too: the refused upgrade keeps its status.
  @Test func aRefusedUpgradeOverTLSCarriesTheHTTPStatus() async throws {
    let server = try TLSTestServer()
    let client = try TestCertificates.client()
    let error = try await withTimeout(seconds: 60) { () -> WebSocketClientError? in
      do {
        _ = try await WebSocketClient.connect(
          to: "wss://localhost:\(server.port)/echo", connectTimeout: .seconds(60), tls: client)
        return nil
      } catch let error as WebSocketClientError {
        return error
      }
    }
    guard case .handshakeRejected(let status, _) = error else {
      Issue.record("expected a 401, got \(String(describing: error))")
      return
    }
    #expect(status == 401)
    await server.server.shutdown()
  }

  @Test func aCertificateForAnotherHostIsAHostNameMismatchOnBothNames() async throws {
    let server = try TLSTestServer(certificate: "wronghost")
    let client = try TestCertificates.client()
    for host in ["localhost", "127.0.0.1"] {
      let error = try await tlsFailure(
        connecting: "wss://\(host):\(server.port)/echo", client: client)
      #expect(error.flatMap(tlsError) == .hostnameMismatch(host))
      // Our client refused the certificate with an alert; the server says so.
      let failure = try await server.nextFailure()
      guard case .rejectedByPeer = failure else {
        Issue.record("the server saw \(String(describing: failure))")
        continue
      }
    }
    await server.server.shutdown()
  }

  @Test func aSelfSignedCertificateIsUntrusted() async throws {
    let server = try TLSTestServer(certificate: "selfsigned")
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(server.port)/echo", client: TestCertificates.client())
    guard case .untrustedCertificate(let detail) = error.flatMap(tlsError) else {
      Issue.record("expected an untrusted certificate, got \(String(describing: error))")
      return
    }
    #expect(detail == "self-signed certificate")
    #expect(try await server.nextFailure() == .rejectedByPeer("unknown CA"))
    await server.server.shutdown()
  }

  /// A client that trusts another CA (here: only the self-signed certificate) finds the real
  /// server's chain leads nowhere it knows.
  @Test func aChainToAnUnknownCAIsUntrusted() async throws {
    let server = try TLSTestServer()
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(server.port)/echo",
      client: TestCertificates.client(trusting: "selfsigned.pem"))
    guard case .untrustedCertificate(let detail) = error.flatMap(tlsError) else {
      Issue.record("expected an untrusted certificate, got \(String(describing: error))")
      return
    }
    #expect(detail == "unable to get local issuer certificate")
    await server.server.shutdown()
  }

  @Test(arguments: [
    ("expired", "certificate has expired"), ("notyet", "certificate is not yet valid"),
  ])
  func aCertificateOutOfItsDatesIsRefusedByOurClient(name: String, reason: String) async throws {
    let peer = try await OpenSSLServer.start(certificate: "\(name).pem", key: "\(name).key")
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(peer.port)/x", client: TestCertificates.client())
    switch error.flatMap(tlsError) {
    case .certificateExpired(let detail) where name == "expired":
      #expect(detail.hasPrefix(reason))
      #expect(detail.contains("until Jan  2 00:00:00 2020 GMT"))
    case .certificateNotYetValid(let detail) where name == "notyet":
      #expect(detail.hasPrefix(reason))
    default:
      Issue.record("\(name): unexpected \(String(describing: error))")
    }
  }

  @Test func aServerThatOnlySpeaksTLS11IsRefused() async throws {
    let peer = try await OpenSSLServer.start(
      certificate: "server.pem", key: "server.key",
      arguments: ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(peer.port)/x", client: TestCertificates.client())
    guard case .unsupportedProtocolVersion = error.flatMap(tlsError) else {
      Issue.record("expected a protocol version failure, got \(String(describing: error))")
      return
    }
  }

  /// `openssl s_server` completes the handshake with our client and then, speaking no HTTP,
  /// never answers the upgrade: the connect times out after TLS worked, not during it.
  @Test func ourClientCompletesAHandshakeWithOpenSSLsServer() async throws {
    let peer = try await OpenSSLServer.start(certificate: "server.pem", key: "server.key")
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(peer.port)/x", client: TestCertificates.client(),
      connectTimeout: .milliseconds(500))
    guard case .timedOut = error else {
      Issue.record("expected the upgrade to time out, got \(String(describing: error))")
      return
    }
  }

  @Test func aPlaintextRequestToTheTLSPortGetsA400InPlaintextAndTheServerStaysUp()
    async throws
  {
    let server = try TLSTestServer()
    let response = await rawExchange(port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(response.contains("\"code\":\"tls_required\""))
    #expect(try await server.nextFailure() == .plaintextPeer)
    let rejections = server.rejections
    let rejection = try await withTimeout(seconds: 60) { await rejections.first { _ in true } }
    #expect(rejection?.status == .badRequest)
    #expect(rejection?.code == "tls_required")
    let reply = try await echoOverTLS(
      "wss://localhost:\(server.port)/echo", client: TestCertificates.client())
    #expect(reply == "echo: hello")
    await server.server.shutdown()
  }

  @Test func tlsToAPlaintextServerSaysThePeerDoesNotSpeakTLS() async throws {
    let (server, port) = try startTestServer()
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(port)/echo", client: TestCertificates.client())
    #expect(error.flatMap(tlsError) == .plaintextPeer)
    await server.shutdown()
  }

  /// A client that begins a handshake and stalls is dropped at the header timeout, reported as
  /// a TLS time-out, while another client is served. (The timeout is long enough for the good
  /// client's own handshake on a loaded machine: at 300 ms a busy CI run once dropped it too.)
  @Test func aStalledHandshakeIsDroppedAtTheHeaderTimeout() async throws {
    let server = try TLSTestServer { configuration in
      configuration.headerTimeout = .seconds(2)
      configuration.tickInterval = .milliseconds(50)
    }
    async let stalled = rawBytesExchange(port: server.port, partialClientHello)
    let reply = try await echoOverTLS(
      "wss://localhost:\(server.port)/echo", client: TestCertificates.client())
    #expect(reply == "echo: hello")
    let (bytes, elapsed) = await stalled
    #expect(bytes.isEmpty)
    #expect(elapsed >= .milliseconds(1_999))
    // Well before any other timeout of the server (idle: 60 s) could have closed it.
    #expect(elapsed < .seconds(20))
    #expect(try await server.nextFailure() == .handshakeTimedOut)
    await server.server.shutdown()
  }

  @Test func aPeerThatHangsUpMidHandshakeIsReportedAsSuch() async throws {
    let server = try TLSTestServer()
    _ = await rawBytesExchange(port: server.port, partialClientHello, closeAfterSending: true)
    #expect(try await server.nextFailure() == .closedDuringHandshake)
    await server.server.shutdown()
  }

  /// A server that takes the connection and never answers the ClientHello: the connect
  /// timeout ends the attempt.
  @Test func aServerThatStallsTheHandshakeTimesOut() async throws {
    let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 4)
    defer { close(listener) }
    let started = ContinuousClock.now
    let error = try await tlsFailure(
      connecting: "wss://localhost:\(port)/x", client: TestCertificates.client(),
      connectTimeout: .milliseconds(300))
    guard case .timedOut = error else {
      Issue.record("expected a time-out, got \(String(describing: error))")
      return
    }
    #expect(ContinuousClock.now - started >= .milliseconds(299))
  }

  @Test func shutdownClosesATLSWebSocketWith1001() async throws {
    let server = try TLSTestServer()
    let socket = try await WebSocketClient.connect(
      to: "wss://localhost:\(server.port)/echo", headers: ["Authorization": "Bearer good"],
      connectTimeout: .seconds(60), tls: TestCertificates.client())
    try socket.send(text: "ready?")
    var iterator = socket.messages.makeAsyncIterator()
    #expect(await iterator.next() == "echo: ready?")
    await server.server.shutdown()
    try await withTimeout(seconds: 30) { await socket.waitUntilClosed() }
    #expect(socket.closeCode == .goingAway)
  }
}

/// What a server's or a client's context refuses to be made from, each with its own error.
@Suite(.testCertificates) struct TLSContextTests {
  @Test func aServerStartsWithAGoodChainAndKey() throws {
    let context = try TestCertificates.server()
    #expect(context.configuration.role == .server)
    #expect(context.configuration.minimumVersion == .tls12)
  }

  @Test func aMissingFileIsUnreadable() throws {
    let missing = try TestCertificates.path("missing.pem")
    #expect(
      throws: TLSError.unreadableFile(path: missing, reason: "No such file or directory")
    ) {
      try TLSContext(
        configuration: .makeServerConfiguration(
          certificateChainFile: missing, privateKeyFile: TestCertificates.path("server.key")))
    }
    #expect(
      throws: TLSError.unreadableFile(path: missing, reason: "No such file or directory")
    ) {
      try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(missing)))
    }
  }

  @Test func textThatIsNotPEMIsNoCertificateAndNoKey() throws {
    let garbage = try TestCertificates.path("garbage.pem")
    #expect(
      throws: TLSError.invalidCertificate(
        path: garbage, reason: "no PEM block (-----BEGIN …-----) in it")
    ) {
      try TLSContext(
        configuration: .makeServerConfiguration(
          certificateChainFile: garbage, privateKeyFile: TestCertificates.path("server.key")))
    }
    #expect(
      throws: TLSError.invalidPrivateKey(
        path: garbage, reason: "no PEM block (-----BEGIN …-----) in it")
    ) {
      try TLSContext(
        configuration: .makeServerConfiguration(
          certificateChainFile: TestCertificates.path("server.pem"), privateKeyFile: garbage))
    }
    #expect {
      try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(garbage)))
    } throws: { error in
      if case .invalidCertificate(garbage, _) = error as? TLSError { return true }
      return false
    }
  }

  /// An encrypted key fails at once, with the reason, instead of OpenSSL asking for the
  /// passphrase on the terminal (which would hang a server started by a service manager).
  @Test func anEncryptedKeyIsRefusedWithoutAPrompt() throws {
    let encrypted = try TestCertificates.path("encrypted.key")
    #expect(throws: TLSError.invalidPrivateKey(path: encrypted, reason: "it is encrypted")) {
      try TLSContext(
        configuration: .makeServerConfiguration(
          certificateChainFile: TestCertificates.path("server.pem"), privateKeyFile: encrypted))
    }
  }

  @Test func aKeyOfAnotherCertificateIsAMismatch() throws {
    let certificate = try TestCertificates.path("server.pem")
    let key = try TestCertificates.path("other.key")
    #expect(throws: TLSError.keyDoesNotMatchCertificate(certificate: certificate, key: key)) {
      try TLSContext(
        configuration: .makeServerConfiguration(
          certificateChainFile: certificate, privateKeyFile: key))
    }
  }

  @Test func aServerRefusesItsOwnCertificateOutOfItsDates() throws {
    let expired = try TestCertificates.path("expired.pem")
    #expect(
      throws: TLSError.ownCertificateExpired(path: expired, notAfter: "Jan  2 00:00:00 2020 GMT")
    ) {
      try TestCertificates.server("expired")
    }
    let notYet = try TestCertificates.path("notyet.pem")
    #expect(
      throws: TLSError.ownCertificateNotYetValid(
        path: notYet, notBefore: "Jan  1 00:00:00 2099 GMT")
    ) {
      try TestCertificates.server("notyet")
    }
  }
}

/// The TLS error inside a client error, if that is what it is.
func tlsError(_ error: WebSocketClientError) -> TLSError? {
  if case .tls(let error) = error { return error }
  return nil
}
