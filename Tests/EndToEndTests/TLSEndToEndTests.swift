import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatServerTool
import ChatTestSupport
import ChatTransports
import Foundation
import Support
import TLSTestSupport
import Testing
import Wire

/// The reference server with `--tls-cert` / `--tls-key`, and real engines whose requests
/// (`WireHTTPTransport`, `https://`) and live socket (`WireLiveTransport`, `wss://`) cross TLS
/// on a loopback port, trusting the test CA only.
@Suite(.serialized, .timeLimit(.minutes(2)), .testCertificates)
struct TLSEndToEndTests {
  @Test func enginesExchangeMessagesOverWSSWithATLSServer() async throws {
    let server = try LoopbackServer(
      tls: (try TestCertificates.path("server.pem"), try TestCertificates.path("server.key")))
    #expect(server.server.url == "https://127.0.0.1:\(server.server.port)")
    let trust = try TLSContext(
      configuration: .makeClientConfiguration(trustRoots: .file(TestCertificates.path("ca.pem"))))
    let alice = try await server.engineOverTLS("alice", trusting: trust)
    let bob = try await server.engineOverTLS("bob", trusting: trust)
    await alice.start()
    await bob.start()
    _ = try await firstValue(of: alice.connectionStates(), "alice's socket") { $0 == .connected }
    _ = try await firstValue(of: bob.connectionStates(), "bob's socket") { $0 == .connected }

    let conversation = try await alice.conversationList.createConversation(
      title: "Over TLS", memberIDs: [UserID("bob")])
    _ = try await firstValue(of: bob.conversationList.conversations(), "bob's list") {
      $0.contains { $0.id == conversation }
    }
    let sent = try await alice.messages.send("hello over wss", in: conversation)
    let bobsView = try await firstValue(
      of: bob.messages.messages(in: conversation), "bob's live copy"
    ) { $0.contains { $0.id == sent && $0.sequence == 1 } }
    #expect(bobsView.map(\.text) == ["hello over wss"])
    bob.messages.markRead(upTo: 1, in: conversation)
    _ = try await firstValue(of: alice.messages.messages(in: conversation), "alice's read tick") {
      $0.first { $0.id == sent }?.receipt == .read
    }
    let metrics = String(
      decoding: await server.server.service.handle(APIRequest(method: "GET", path: "/metrics"))
        .body, as: UTF8.self)
    #expect(metrics.contains("chat_live_subscriptions_open 2\n"))

    await alice.close()
    await bob.close()
    await server.stop()
  }

  /// A device that does not trust the server's CA cannot even sign in: the error names the
  /// certificate problem, and the server logs the handshake our client refused.
  @Test func aDeviceThatDoesNotTrustTheCACannotSignInAndTheServerLogsWhy() async throws {
    let server = try LoopbackServer(
      tls: (try TestCertificates.path("server.pem"), try TestCertificates.path("server.key")))
    let wrongTrust = try TLSContext(
      configuration: .makeClientConfiguration(
        trustRoots: .file(TestCertificates.path("selfsigned.pem"))))
    let logged = server.log.written
    do {
      _ = try await server.engineOverTLS("carol", trusting: wrongTrust)
      Issue.record("signed in without trusting the server")
    } catch {
      guard case .serverNotTrusted(let reason) = error as? ChatError else {
        Issue.record("expected an untrusted server, got \(error)")
        return
      }
      #expect(
        reason == "TLS: the peer's certificate is not trusted (unable to get local issuer "
          + "certificate); give its CA with --ca-file or SSL_CERT_FILE")
    }
    let failure = try await firstValue(of: logged, "the server's tls_failed line") {
      $0.event == "tls_failed"
    }
    #expect(failure["code"] == "rejected_by_peer")
    await server.stop()
  }

  @Test func aServerWithAKeyOfAnotherCertificateDoesNotStart() throws {
    let folder = try TemporaryFolder()
    var options = ServerOptions(dataFolder: folder.path)
    options.port = 0
    options.tlsCertificate = try TestCertificates.path("server.pem")
    options.tlsKey = try TestCertificates.path("other.key")
    #expect {
      try ReferenceServer.start(options, log: DiscardingLogSink())
    } throws: { error in
      guard case .tls(.keyDoesNotMatchCertificate) = error as? ServerStartError else {
        return false
      }
      return "\(error)".hasPrefix("cannot serve TLS: the private key ")
    }
    // Nothing was created: the files are checked before the data folder is touched.
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/chat.sqlite"))
  }

  @Test func aServerWithAnExpiredCertificateDoesNotStart() throws {
    let folder = try TemporaryFolder()
    var options = ServerOptions(dataFolder: folder.path)
    options.port = 0
    options.tlsCertificate = try TestCertificates.path("expired.pem")
    options.tlsKey = try TestCertificates.path("expired.key")
    #expect {
      try ReferenceServer.start(options, log: DiscardingLogSink())
    } throws: { error in
      guard case .tls(.ownCertificateExpired) = error as? ServerStartError else { return false }
      return true
    }
  }
}

extension LoopbackServer {
  /// An engine whose requests go to `https://localhost:PORT` and whose socket is
  /// `wss://localhost:PORT/v1/live`, both trusting `trust`, signed in (over TLS) as `user`.
  func engineOverTLS(_ user: String, trusting trust: TLSContext) async throws -> ChatEngine {
    var configuration = HTTPClient.Configuration()
    configuration.tls = trust
    let environment = ChatEngine.Environment(
      http: try WireHTTPTransport(
        baseURL: URL(string: "https://localhost:\(server.port)")!, configuration: configuration),
      live: WireLiveTransport(
        url: "wss://localhost:\(server.port)/v1/live", connectTimeout: .seconds(10), tls: trust))
    return try await ChatEngine.devSignIn(
      user: UserID(user), device: DeviceID("phone"),
      database: .file(folder.path + "/\(user)-tls.sqlite"), environment: environment)
  }
}
