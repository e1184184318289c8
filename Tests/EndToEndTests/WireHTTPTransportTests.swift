import ChatAPI
import ChatData
import Foundation
import Glibc
import Synchronization
import Testing
import Wire

@testable import ChatTransports

/// The engine's Linux transport over Wire's HTTP client: what it writes, which URLs it refuses,
/// and how it maps failures to the engine's two classes.
@Suite(.timeLimit(.minutes(3)))
struct WireHTTPTransportTests {
  @Test func otherSchemesAndPartsAreRefusedClearly() throws {
    _ = try WireHTTPTransport(baseURL: URL(string: "https://chat.example:8443/api")!)
    do {
      _ = try WireHTTPTransport(baseURL: URL(string: "ftp://chat.example/")!)
      Issue.record("ftp accepted")
    } catch {
      #expect(error.reason == "not an http:// or https:// URL")
    }
    for text in ["ftp://h/", "http://h/?q=1", "http://user@h/"] {
      #expect(throws: WireHTTPTransport.BaseURLError.self, "\(text)") {
        try WireHTTPTransport(baseURL: URL(string: text)!)
      }
    }
  }

  @Test func thePrefixTheQueryAndTheHeadersReachTheServerAsWritten() async throws {
    // 60 s on both sides: hang guards, not timings (at the start of a CI run every suite starts
    // at once on two cores; the default 15 s once passed before the server answered).
    var configuration = HTTPServer.Configuration(port: 0, loopCount: 1)
    configuration.headerTimeout = .seconds(60)
    let server = HTTPServer(configuration: configuration) { request in
      var seen = "\(request.method) \(request.path)"
      for item in request.queryItems { seen += " [\(item.name)=\(item.value)]" }
      seen += " auth=\(request.headers["Authorization"] ?? "-") body=\(request.bodyText)"
      return .text(seen)
    }
    let port = try server.start()
    let transport = try WireHTTPTransport(
      baseURL: URL(string: "http://127.0.0.1:\(port)/api/")!, timeout: .seconds(60),
      configuration: LoopbackServer.patientHTTP)
    let response = try await transport.send(
      APIRequest(
        method: "POST", path: "/v1/conversations/c1/messages",
        query: ["cursor": "a+b&c=d é", "limit": "5"], headers: ["Authorization": "Bearer t"],
        body: Array("{}".utf8)))
    #expect(response.status == 200)
    #expect(
      String(decoding: response.body, as: UTF8.self)
        == "POST /api/v1/conversations/c1/messages [cursor=a+b&c=d é] [limit=5] auth=Bearer t body={}"
    )
    #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    await server.shutdown()
  }

  @Test func aServerThatIsNotThereIsUnreachable() async throws {
    let port = closedLoopbackPort()
    // 60 s limits are hang guards: in a clean-clone CI run the default ones once passed, at the
    // start when every suite runs at once, before the refusal came back.
    let transport = try WireHTTPTransport(
      baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(60),
      configuration: LoopbackServer.patientHTTP)
    do {
      _ = try await transport.send(APIRequest(.healthz))
      Issue.record("reached a closed port")
    } catch {
      guard case .unreachable(let reason) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(reason == "127.0.0.1:\(port) refused the connection")
    }
  }

  /// A reply too late for a request the server got is `.timeout`. (On a machine busy enough to
  /// keep the caller from running until the deadline, the request is never written and is
  /// rightly `.unreachable`; the check is made on an attempt the server saw.)
  @Test func aReplyTooLateIsATimeout() async throws {
    let arrived = Mutex<Set<String>>([])
    var router = Router()
    router.get("/healthz") { request in
      arrived.withLock { _ = $0.insert(request.queryParameters["n"] ?? "") }
      try? await Task.sleep(for: .seconds(30))
      return .text("late")
    }
    var configuration = HTTPServer.Configuration(port: 0, loopCount: 1)
    configuration.headerTimeout = .seconds(60)
    let server = HTTPServer(configuration: configuration, router: router)
    let port = try server.start()
    var seenByTheServer = false
    // Longer deadlines each time: under a full CI load one short deadline can pass before the
    // server's thread handles anything.
    let deadlines: [Duration] = [.milliseconds(300), .seconds(1), .seconds(3), .seconds(8)]
    for (attempt, deadline) in deadlines.enumerated() where !seenByTheServer {
      let transport = try WireHTTPTransport(
        baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: deadline)
      do {
        _ = try await transport.send(APIRequest(.healthz, query: ["n": "\(attempt)"]))
        Issue.record("no timeout")
      } catch {
        if arrived.withLock({ $0.contains("\(attempt)") }) {
          seenByTheServer = true
          #expect(error == .timeout)
        } else {
          // Not seen yet: either not written (or not even connected) in time, or written and
          // not yet handled.
          var isUnreachable = false
          if case .unreachable = error { isUnreachable = true }
          #expect(error == .timeout || isUnreachable, "\(error)")
        }
      }
    }
    #expect(seenByTheServer)
    await server.shutdown()
  }

  /// A timeout is `.timeout` only once the whole request was written; any failure before that
  /// is `.unreachable` (the server cannot have acted on it: the outbox may then change the
  /// message in place); after it, `.offline`.
  @Test func failuresMapToUnreachableUnlessTheServerMayHaveActed() {
    let timedOut = HTTPClientError.Reason.timedOut
    #expect(WireHTTPTransport.map(HTTPClientError(timedOut, progress: .sent)) == .timeout)
    #expect(
      WireHTTPTransport.map(HTTPClientError(timedOut, progress: .responseStarted)) == .timeout)
    for progress in [HTTPRequestProgress.notSent, .partlySent] {
      #expect(
        WireHTTPTransport.map(HTTPClientError(timedOut, progress: progress))
          == .unreachable("the request timed out before it was sent"))
    }
    #expect(
      WireHTTPTransport.map(HTTPClientError(.connectionClosed, progress: .responseStarted))
        == .offline("the connection closed before the response was complete"))
    #expect(
      WireHTTPTransport.map(
        HTTPClientError(.connectFailed(.refused(address: "h:1")), progress: .notSent))
        == .unreachable("h:1 refused the connection"))
    #expect(
      WireHTTPTransport.map(HTTPClientError(.connectionClosed, progress: .partlySent))
        == .unreachable("the connection closed before the response was complete"))
  }

  @Test func onlyPOSTsTheServerRecognisesTwiceAreMarkedSafeToRepeat() {
    let safe = [
      APIRequest(.postItem(conversation: "c"), json: ["text": "x"]),
      APIRequest(.read(conversation: "c"), json: ["upToSequence": 1]),
      APIRequest(.delivered(conversation: "c"), json: ["upToSequence": 1]),
    ]
    let unsafe = [
      APIRequest(.refresh, json: ["refreshToken": "r"]),
      APIRequest(.devLogin, json: ["userId": "u"]),
      APIRequest(.createConversation, json: ["title": "t"]),
    ]
    #expect(safe.allSatisfy(WireHTTPTransport.isSafeToRepeat))
    #expect(!unsafe.contains(where: WireHTTPTransport.isSafeToRepeat))
  }
}

/// A loopback port with nothing listening: bound, then closed.
func closedLoopbackPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  _ = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}
