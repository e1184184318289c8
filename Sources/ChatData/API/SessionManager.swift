import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// Holds this device's tokens and refreshes them.
///
/// On a 401 the caller asks for a refresh, naming the token that failed: if another request
/// already refreshed it, the new token is returned without a second refresh, so a burst of 401s
/// costs one `POST /v1/auth/refresh`; tokens another process of the device saved meanwhile
/// are taken instead of a refresh (a spent refresh token presented again revokes the family).
/// A refresh refused with 401 ends the session for good: every later call answers `signedOut`
/// at once.
actor SessionManager {
  nonisolated let executor: any SerialTaskExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  private var session: SessionRecord
  private let store: MessageStore
  private let transport: any HTTPTransport
  private let log: any LogSink
  private let retryPolicy: RetryPolicy
  private var refreshing: Task<Result<String, RequestFailure>, Never>?
  private(set) var isSignedOut = false
  private var signedOutWatchers: [@Sendable () async -> Void] = []

  init(
    session: SessionRecord, store: MessageStore, transport: any HTTPTransport, log: any LogSink,
    retryPolicy: RetryPolicy, executor: any SerialTaskExecutor
  ) {
    self.retryPolicy = retryPolicy
    self.session = session
    self.store = store
    self.transport = transport
    self.log = log
    self.executor = executor
  }

  var userID: UserID { session.userID }

  /// The current access token, or `signedOut`.
  func accessToken() throws(RequestFailure) -> String {
    guard !isSignedOut else { throw .signedOut }
    return session.accessToken
  }

  /// Called once when the session ends.
  func onSignedOut(_ watcher: @escaping @Sendable () async -> Void) {
    signedOutWatchers.append(watcher)
  }

  /// Refreshes the tokens after `failedToken` was refused, once for all callers.
  func refresh(after failedToken: String) async throws(RequestFailure) -> String {
    guard !isSignedOut else { throw .signedOut }
    if session.accessToken != failedToken { return session.accessToken }
    if let refreshing { return try await refreshing.value.get() }
    let task = executor.spawn { await self.performRefresh() }
    refreshing = task
    let result = await task.value
    refreshing = nil
    return try result.get()
  }

  private func performRefresh() async -> Result<String, RequestFailure> {
    // Another process of this device (a second `chat` on the same database) may have refreshed
    // already: its tokens are in the store, and the refresh token held here is spent. Sent
    // again, the server would take it for a stolen copy and revoke the family, signing both
    // out; so take the stored ones.
    if let stored = try? await store.session(), stored.refreshToken != session.refreshToken,
      stored.userID == session.userID, stored.deviceID == session.deviceID
    {
      session = stored
      log.write(LogRecord(.info, "session.taken_from_store"))
      return .success(stored.accessToken)
    }
    let request = APIRequest(.refresh, json: Refresh(refreshToken: session.refreshToken))
    let response: APIResponse
    do {
      response = try await transport.send(request)
    } catch {
      return .failure(APIClient.map(error))
    }
    switch response.status {
    case 200:
      guard let tokens = try? APIClient.read(Tokens.self, from: response, of: request),
        let expiresAt = Timestamp(rfc3339: tokens.expiresAt)?.date
      else { return .failure(.malformedReply("refresh")) }
      session.accessToken = tokens.accessToken
      session.refreshToken = tokens.refreshToken
      session.expiresAt = expiresAt
      do {
        try await store.saveSession(session)
      } catch {
        log.write(LogRecord(.error, "session.save_failed", [("error", "\(error)")]))
      }
      log.write(LogRecord(.info, "session.refreshed"))
      return .success(tokens.accessToken)
    case 401:
      await signOut()
      return .failure(.signedOut)
    default:
      return .failure(APIClient.classify(response, retryPolicy: retryPolicy))
    }
  }

  /// Ends the session: every later call answers `signedOut`.
  func signOut() async {
    guard !isSignedOut else { return }
    isSignedOut = true
    log.write(LogRecord(.warning, "session.signed_out"))
    for watcher in signedOutWatchers { await watcher() }
  }
}
