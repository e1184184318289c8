import ChatAPI
import ChatTestSupport
import ChatWorld
import Foundation
import Support
import Testing

@testable import ChatServer

/// The store speaks of what went wrong in its own words (`StoreError`); the service's error
/// middleware (`ChatService.failure(for:)`) alone turns them into API.md's statuses, codes and
/// messages, which the contract suite checks over the network.
@Suite struct StoreErrorTests {
  @Test(
    arguments: [
      (StoreError.notAMember, 404, "not_found", "No such conversation.", nil),
      (
        .formerMember, 403, "forbidden",
        "You are no longer a member of this conversation: you can read what you saw.", nil
      ),
      (
        .keyReused, 409, "conflict", "This clientMessageId was already sent with another body.",
        nil
      ),
      (.invalid("The target was deleted."), 422, "invalid", "The target was deleted.", nil),
      (
        .notAllowed("Only its sender may edit or delete a message."), 403, "forbidden",
        "Only its sender may edit or delete a message.", nil
      ),
      (
        .malformed("cursor is not one this server issued."), 400, "bad_request",
        "cursor is not one this server issued.", nil
      ),
      (
        .unknownToken, 401, "unauthorized", "Sign in again: the token is missing or not valid.", nil
      ),
      (.unreachable, 503, "unavailable", "The server could not save this; try again.", 1),
      (
        .collidedTooOften(sqlState: "40P01"), 503, "unavailable",
        "The server could not save this; try again.", 1
      ),
      (
        .commitFailed("disk I/O error"), 503, "unavailable",
        "The server could not save this; try again.", 1
      ),
      (
        .internal("no such column"), 500, "internal",
        "Something went wrong on the server; try again later.", nil
      ),
    ] as [(StoreError, Int, String, String, Int?)])
  func eachStoreErrorIsAnsweredAsAPIMdSays(
    error: StoreError, status: Int, code: String, message: String, retryAfter: Int?
  ) {
    let failure = ChatService.failure(for: error)
    #expect(failure.status == status)
    #expect(failure.code.rawValue == code)
    #expect(failure.message == message)
    #expect(failure.retryAfterSeconds == retryAfter)
  }

  /// What failed inside goes to the server's log, never to the client.
  @Test func aFailureKeepsItsDetailForTheLogOnly() {
    #expect(
      ChatService.failure(for: StoreError.commitFailed("disk full")).detail
        == "group commit failed: disk full")
    #expect(
      ChatService.failure(for: StoreError.unreachable).detail
        == "The database cannot be reached; try again.")
    #expect(
      ChatService.failure(for: StoreError.internal("no such column")).detail
        == "no such column")
  }

  /// Given a database that cannot be reached, every request that needs it is a 503 with
  /// `Retry-After` (the client retries), `/healthz` says so, and the log says why.
  @Test func aDatabaseThatCannotBeReachedIsA503AndHealthzSaysSo() async {
    let node = FailingNode(failure: .unreachable)
    let login = await node.request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"alice","deviceId":"phone"}"#)
    #expect(login.status == 503)
    #expect(login.errorCode == "unavailable")
    #expect(login.header("Retry-After") == "1")
    let health = await node.request("GET", "/healthz")
    #expect(health.status == 503)
    #expect(health.text == "database unreachable")
    #expect(
      node.log.lines.contains {
        $0.contains("status=503") && $0.contains("The database cannot be reached")
      })
  }

  /// Given a database that fails inside, a write is a 500 whose words tell the client nothing
  /// of the database; the detail is in the log.
  @Test func anInternalStoreFailureIsA500WithItsDetailInTheLogOnly() async {
    let node = FailingNode(failure: .internal("no such table: refresh_tokens"))
    let login = await node.request(
      "POST", "/v1/auth/dev-login", body: #"{"userId":"alice","deviceId":"phone"}"#)
    #expect(login.status == 500)
    #expect(login.errorCode == "internal")
    #expect(!login.text.contains("refresh_tokens"))
    #expect(node.log.lines.contains { $0.contains("no such table: refresh_tokens") })
  }
}

/// A service over a backend whose every read and write fails with `failure`: the database
/// edge of the store, failing as a real one can. Anything else asked of it fails the test.
final class FailingNode: Sendable {
  let executor = ThreadExecutor(name: "test.failing-node")
  let service: ChatService
  let log = CapturingLogSink()

  init(failure: StoreError) {
    let store = ServerStore(backend: FailingBackend(failure: failure), executor: executor)
    service = ChatService(
      store: store,
      configuration: TestServer.defaultConfiguration,
      clock: ManualClock(wallClock: TestServer.start), random: SplitMix64(seed: 3),
      executor: executor,
      log: log)
  }

  deinit {
    executor.shutdown()
  }

  func request(_ method: String, _ path: String, token: String? = nil, body: String = "")
    async -> TestResponse
  {
    var headers: HeaderFields = [:]
    if let token { headers["authorization"] = "Bearer \(token)" }
    return TestResponse(
      await service.handle(
        APIRequest(method: method, path: path, headers: headers, body: Array(body.utf8))))
  }

}

/// A backend whose reads and writes all fail with `failure`.
final class FailingBackend: StoreBackend {
  let failure: StoreError

  init(failure: StoreError) {
    self.failure = failure
  }

  var dialect: SQLDialect { .sqlite }

  func read<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T {
    throw failure
  }

  func write<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T {
    throw failure
  }

  func textWasReplaced() async {
    Issue.record("a failing database stored a delete or an edit")
  }

  func vacuumIfOwed() async -> Bool {
    Issue.record("vacuumIfOwed was not expected")
    return false
  }

  func finishErasure() async {}

  func statistics() async -> StoreStatistics { StoreStatistics() }

  func close() async {}
}
