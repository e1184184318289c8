import Foundation
import TLSTestSupport
import Testing

@testable import Wire

/// The HTTP client over TLS: keep-alive through the TLS layer, verification failures as the
/// typed `tls` error before anything is sent, and `openssl s_server -www` as an independent
/// HTTPS server.
@Suite(.timeLimit(.minutes(2)), .testCertificates)
struct HTTPSClientTests {
  /// A client trusting only the test CA, as `chat --ca-file` makes it.
  func client() throws -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.tls = try TestCertificates.client()
    return HTTPClient(configuration: configuration)
  }

  @Test(arguments: ["localhost", "127.0.0.1"])
  func requestsOverTLSShareOneKeptAliveConnection(host: String) async throws {
    let server = try TLSTestServer()
    let client = try client()
    for _ in 0..<5 {
      let response = try await client.execute(
        HTTPClientRequest(url: "https://\(host):\(server.port)/healthz"), timeout: .seconds(10))
      #expect(response.status.code == 200)
      #expect(response.bodyText == "ok")
    }
    #expect(await client.statistics().connectionsOpened == 1)
    await client.shutdown()
    await server.server.shutdown()
  }

  /// A body far larger than one TLS record (16 KB) arrives whole.
  @Test func aLargeBodyCrossesManyRecords() async throws {
    let server = try TLSTestServer()
    let client = try client()
    let response = try await client.execute(
      HTTPClientRequest(url: "https://localhost:\(server.port)/big?size=300000"),
      timeout: .seconds(10))
    #expect(response.body.count == 300_000)
    #expect(response.body.allSatisfy { $0 == UInt8(ascii: "x") })
    await client.shutdown()
    await server.server.shutdown()
  }

  /// The same origin over http and https never shares a connection: each scheme has its own.
  @Test func anHTTPAndAnHTTPSServerOnTheirOwnPortsEachAnswer() async throws {
    let secure = try TLSTestServer()
    let (plain, plainPort) = try startTestServer()
    let client = try client()
    let overTLS = try await client.execute(
      HTTPClientRequest(url: "https://localhost:\(secure.port)/healthz"), timeout: .seconds(10))
    let inClear = try await client.execute(
      HTTPClientRequest(url: "http://localhost:\(plainPort)/healthz"), timeout: .seconds(10))
    #expect(overTLS.bodyText == "ok")
    #expect(inClear.bodyText == "ok")
    #expect(await client.statistics().connectionsOpened == 2)
    await client.shutdown()
    await secure.server.shutdown()
    await plain.shutdown()
  }

  /// What a failed handshake is: the `tls` reason, nothing sent (so the engine may send it
  /// again, later), and no second attempt by the client.
  func failure(_ url: String, client: HTTPClient) async -> HTTPClientError? {
    do {
      _ = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
      return nil
    } catch {
      return error
    }
  }

  @Test func aCertificateForAnotherHostFailsBeforeTheRequestIsSent() async throws {
    let server = try TLSTestServer(certificate: "wronghost")
    let client = try client()
    let error = await failure("https://localhost:\(server.port)/healthz", client: client)
    #expect(error?.reason == .tls(.hostnameMismatch("localhost")))
    #expect(error?.progress == .notSent)
    #expect(error?.description == "TLS: the peer's certificate is not valid for localhost")
    #expect(await client.statistics().connectionsOpened == 1)
    await client.shutdown()
    await server.server.shutdown()
  }

  @Test func aSelfSignedCertificateIsUntrusted() async throws {
    let server = try TLSTestServer(certificate: "selfsigned")
    let client = try client()
    let error = await failure("https://localhost:\(server.port)/healthz", client: client)
    #expect(error?.reason == .tls(.untrustedCertificate("self-signed certificate")))
    #expect(error?.progress == .notSent)
    await client.shutdown()
    await server.server.shutdown()
  }

  @Test func httpsToAPlaintextServerSaysThePeerDoesNotSpeakTLS() async throws {
    let (plain, port) = try startTestServer()
    let client = try client()
    let error = await failure("https://localhost:\(port)/healthz", client: client)
    #expect(error?.reason == .tls(.plaintextPeer))
    await client.shutdown()
    await plain.shutdown()
  }

  /// The client's default trust is the system's store (or `SSL_CERT_FILE`), where the test CA
  /// is not: the test server is refused.
  @Test func withoutTheCAFileTheTestCAIsNotTrusted() async throws {
    let server = try TLSTestServer()
    let client = HTTPClient()
    let error = await failure("https://localhost:\(server.port)/healthz", client: client)
    guard case .tls(.untrustedCertificate) = error?.reason else {
      Issue.record("expected an untrusted certificate, got \(String(describing: error))")
      return
    }
    await client.shutdown()
    await server.server.shutdown()
  }

  /// `openssl s_server -www` answers `GET /` with an HTTP/1.0 status page and closes: an
  /// HTTPS server that is not ours, read to its close.
  @Test func openSSLsWebServerAnswersOurClient() async throws {
    let peer = try await OpenSSLServer.start(
      certificate: "server.pem", key: "server.key", arguments: ["-www"])
    let client = try client()
    let response = try await client.execute(
      HTTPClientRequest(url: "https://localhost:\(peer.port)/"), timeout: .seconds(10))
    #expect(response.status.code == 200)
    #expect(response.bodyText.contains("Protocol  : TLSv1.3"))
    await client.shutdown()
  }

  /// `chat demo --tls`'s certificate: made in memory, 0600 on disk, served by our server and
  /// trusted by our client for every loopback name, read by `openssl` as a valid self-signed
  /// server certificate, and refused by a client that trusts another CA.
  @Test func aLoopbackCertificateServesLocalhostAndIsTrustedOnlyByItsOwnClients() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("wire-loopback-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let certificate = try LoopbackCertificate.make(inFolder: folder)
    for path in [certificate.certificateFile, certificate.privateKeyFile] {
      let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(path)")
    }
    let context = try certificate.serverContext()
    let (server, port) = try startTestServer { $0.tls = context }
    var configuration = HTTPClient.Configuration()
    configuration.tls = try certificate.clientContext()
    let ownClient = HTTPClient(configuration: configuration)
    for host in ["localhost", "127.0.0.1"] {
      let response = try await ownClient.execute(
        HTTPClientRequest(url: "https://\(host):\(port)/healthz"), timeout: .seconds(10))
      #expect(response.bodyText == "ok", "\(host)")
    }
    let stranger = try client()
    let refused = await failure("https://localhost:\(port)/healthz", client: stranger)
    guard case .tls(.untrustedCertificate) = refused?.reason else {
      Issue.record("expected an untrusted certificate, got \(String(describing: refused))")
      return
    }
    let verified = try await runOpenSSL([
      "verify", "-purpose", "sslserver", "-verify_hostname", "localhost", "-CAfile",
      certificate.certificateFile, certificate.certificateFile,
    ])
    #expect(verified == "\(certificate.certificateFile): OK\n")
    await ownClient.shutdown()
    await stranger.shutdown()
    await server.shutdown()
  }
}

/// Runs the `openssl` command on a thread of its own and returns its standard output.
func runOpenSSL(_ arguments: [String]) async throws -> String {
  try await onOwnThread {
    Result { () throws -> String in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: data, as: UTF8.self)
    }
  }.get()
}
