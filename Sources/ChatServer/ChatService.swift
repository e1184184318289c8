import ChatAPI
import SQLite
import Support

/// The reference server's request handler: every route and live event of API.md, over a
/// `ServerStore`, with no network code. The HTTP/WebSocket layer turns requests into
/// `APIRequest` values and calls `handle(_:)`, or `openLive(_:)` for the `/v1/live` upgrade;
/// the client's tests and the simulation call the same two methods directly.
///
/// Deterministic: time comes only from `clock`, randomness (the signing key in memory mode,
/// refresh tokens, conversation and message ids) only from `random`, and all work runs on
/// `executor`, in the order its jobs run. Same requests in the same order → same responses,
/// same events in the same order.
///
/// Order of checks, as API.md ranks them: 401 (token), 429 (rate limit), 413 (body size, then
/// text length), 400 (JSON, fields, ids, query numbers), 404 (unknown route or conversation,
/// or not a member), 422 (ranges, empty text, group size), 409 (clientMessageId reused with
/// another text).
///
/// ## Topics
/// - Requests: `handle(_:)`
/// - Live: `openLive(_:)`, `LiveSubscription`
/// - Routes: `ChatService+Auth.swift`, `+Conversations.swift`, `+Messages.swift`,
///   `+Receipts.swift`, `+Live.swift`
public actor ChatService {
  let store: ServerStore
  let configuration: ServerConfiguration
  let clock: any TimeSource
  var random: any RandomNumberGenerator
  /// Where the service runs: a relay delivers the other nodes' events here, one job each.
  package nonisolated let executor: any SerialTaskExecutor
  let log: any LogSink
  /// Where media bytes go; nil: the media routes answer 503.
  let media: (any MediaStorage)?
  let signer: AccessTokenSigner
  var rateLimiter: RateLimiter?
  /// `configuration.addressRateLimit`'s buckets, by peer address.
  var addressLimiter: RateLimiter?
  /// `configuration.typingLimit`'s buckets, by live subscription.
  var typingLimiter: RateLimiter?
  var hub = LiveHub()
  /// Receipt changes being coalesced, by conversation (`publishReceipt`).
  var receiptWindows: [String: ReceiptWindow] = [:]
  var metrics = ServiceMetrics()
  /// Access tokens whose signature was checked, with their claims: a client sends the same
  /// token for up to `accessTokenTTL`, so the HMAC is computed once per token, not per request.
  /// The expiry is still checked every time. Cleared when it reaches `verifiedTokensLimit`.
  var verifiedTokens: [String: AccessTokenClaims] = [:]
  static let verifiedTokensLimit = 4_096
  /// Refresh-token families revoked (a spent token presented again), with the time after which
  /// none of their access tokens can be unexpired and the entry may go.
  var revokedFamilies: [String: Timestamp] = [:]
  /// Whether `revokedFamilies` holds the store's (`loadRevokedFamilies()`).
  var revokedFamiliesLoaded = false
  /// Where pushes go; nil: no push is queued (tokens are still kept).
  let pushGateway: (any PushGateway)?
  /// The pending wake-up of the push dispatcher, and when it is due (wall-clock ms).
  var pushTimer: (due: Int64, task: Task<Void, Never>)?
  /// The timer's task while its round runs.
  var pushRound: Task<Void, Never>?
  /// Deliveries handed to the gateway whose result is not saved yet, by id.
  var pushDeliveries: [UInt64: Task<Void, Never>] = [:]
  var lastPushDelivery: UInt64 = 0
  /// Set by `stopPushes()`: nothing more is handed to the gateway.
  var pushesStopped = false
  /// `GET /v1/sync?wait=` requests held until something changes for their user.
  var longPolls = LongPolls()
  /// Where this node's live events go to the other nodes of its database; nil on one node.
  let relay: (any LiveRelay)?

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// - Parameters:
  ///   - store: the storage; give it the same `executor` for a deterministic run, or a
  ///     `ThreadExecutor` of its own in production so SQLite and fsync overlap with request
  ///     parsing.
  ///   - random: the only source of randomness; `SystemRandomNumberGenerator` in production
  ///     (refresh tokens and, without `configuration.signingKey`, the signing key come from it).
  ///   - executor: where the service runs, and the tasks it starts.
  public init(
    store: ServerStore,
    configuration: ServerConfiguration = ServerConfiguration(),
    clock: any TimeSource,
    random: some RandomNumberGenerator & Sendable,
    executor: any SerialTaskExecutor,
    log: any LogSink = DiscardingLogSink(),
    media: (any MediaStorage)? = nil,
    pushGateway: (any PushGateway)? = nil,
    relay: (any LiveRelay)? = nil
  ) {
    self.relay = relay
    var random = random
    let key = configuration.signingKey ?? SigningKey.generate(using: &random)
    self.store = store
    self.configuration = configuration
    self.clock = clock
    self.random = random
    self.executor = executor
    self.log = log
    self.media = media
    self.pushGateway = pushGateway
    self.signer = AccessTokenSigner(key: key)
    self.rateLimiter = configuration.rateLimit.map(RateLimiter.init(limit:))
    self.addressLimiter = configuration.addressRateLimit.map(RateLimiter.init(limit:))
    self.typingLimiter = configuration.typingLimit.map(RateLimiter.init(limit:))
  }

  /// Answers one request. Never throws: every failure is an API.md error response, said by
  /// the error middleware (`failure(for:)`).
  public func handle(_ request: APIRequest) async -> APIResponse {
    let started = clock.now()
    let route = Endpoint(method: request.method, path: request.path)
    var user: String?
    let response: APIResponse
    var failure: ServiceError?
    do {
      response = try await respond(to: request, route: route, at: started, user: &user)
    } catch {
      let refusal = Self.failure(for: error)
      response = refusal.response
      failure = refusal
    }
    recordRequest(
      method: request.method, route: Self.pattern(of: route), status: response.status,
      started: started,
      user: user, failure: failure)
    return response
  }

  /// The route pattern for logs and metrics: ids never appear there.
  static func pattern(of route: Endpoint?) -> String {
    route?.pattern ?? "unmatched"
  }

  private func respond(
    to request: APIRequest, route: Endpoint?, at now: Timestamp, user: inout String?
  ) async throws -> APIResponse {
    // Every request but operations and sign-in, an unknown one included, needs a valid token
    // before anything else is said about it: 401 comes first in API.md's precedence.
    guard let route, !route.needsToken else {
      try await loadRevokedFamilies()
      let caller = try authorize(request, at: now)
      user = caller.userId
      try checkBodySize(request)
      return try await respond(to: request, route: route, caller: caller, at: now)
    }
    switch route {
    case .healthz:
      // The database is part of health: a node that cannot reach it answers 503 everywhere.
      guard await store.checkHealth() else {
        return .text(503, "database unreachable", contentType: "text/plain; charset=utf-8")
      }
      return .text(200, "ok", contentType: "text/plain; charset=utf-8")
    case .metrics:
      let page = metrics.render(
        liveSubscriptionsOpen: hub.openCount, longPollsHeld: longPolls.heldCount,
        store: await store.reportedStatistics())
      return .text(200, page, contentType: "text/plain; version=0.0.4; charset=utf-8")
    case .devLogin:
      guard configuration.devMode else { throw ServiceError.unknownRoute }
      try takeAddressBudget(request, at: now)
      try checkBodySize(request)
      return try await devLogin(request, at: now)
    case .refresh:
      try takeAddressBudget(request, at: now)
      try checkBodySize(request)
      return try await refresh(request, at: now)
    default:
      throw ServiceError.unknownRoute
    }
  }

  private func respond(
    to request: APIRequest, route: Endpoint?, caller: AccessTokenClaims, at now: Timestamp
  ) async throws -> APIResponse {
    switch route {
    case .createConversation:
      return try await createConversation(request, by: caller.userId, at: now)
    case .listConversations:
      return try await listConversations(of: caller.userId)
    case .sync:
      return try await sync(request, for: caller.userId, at: now)
    case .listItems(let conversation):
      return try await listMessages(in: conversation, request, for: caller.userId)
    case .postItem(let conversation):
      return try await sendMessage(to: conversation, request, from: caller.userId, at: now)
    case .changeMembers(let conversation):
      return try await changeMembers(of: conversation, request, by: caller.userId, at: now)
    case .changeTitle(let conversation):
      return try await changeTitle(of: conversation, request, by: caller.userId, at: now)
    case .mute(let conversation):
      return try await mute(conversation, request, by: caller.userId)
    case .receipts(let conversation):
      return try await receipts(in: conversation, for: caller.userId)
    case .delivered(let conversation):
      return try await raiseReceipt(.delivered, in: conversation, request, by: caller.userId)
    case .read(let conversation):
      return try await raiseReceipt(.read, in: conversation, request, by: caller.userId)
    case .live:
      throw ServiceError.badRequest("/v1/live is a WebSocket: send the upgrade request.")
    case .createUpload:
      return try await createUpload(request, by: caller.userId, at: now)
    case .upload(let key):
      return try await uploadStatus(key, of: caller.userId, at: now)
    case .completeUpload(let key):
      return try await completeUpload(key, request, of: caller.userId)
    case .media(let key):
      return try await download(key, for: caller.userId, at: now)
    case .registerPush:
      return try await registerPush(request, for: caller)
    case .removePush:
      return try await removePush(for: caller)
    case .search:
      return try await search(request, for: caller.userId)
    default:
      // Unknown, or a route of API.md this server does not serve yet.
      throw ServiceError.unknownRoute
    }
  }

  /// Spends one request of the peer address's budget (`ServerConfiguration.addressRateLimit`):
  /// 429 with `Retry-After` when it is spent. These requests carry no token, so API.md's 401
  /// before 429 does not apply: the budget comes first.
  func takeAddressBudget(_ request: APIRequest, at now: Timestamp) throws(ServiceError) {
    guard let address = request.peerAddress,
      let wait = addressLimiter?.take(for: address, at: now)
    else { return }
    throw ServiceError(
      .rateLimited, "Too many requests from this address; retry later.", retryAfterSeconds: wait)
  }

  private func checkBodySize(_ request: APIRequest) throws(ServiceError) {
    guard request.body.count <= configuration.maxBodyBytes else {
      throw ServiceError.tooLarge("The body is over \(configuration.maxBodyBytes) bytes.")
    }
  }

  /// A request the network layer answered itself (malformed, over a size limit, too slow, a
  /// refused WebSocket handshake): logged and counted like the others, under the route
  /// `unparsed`, with no user (no token was looked at).
  public func recordRejected(method: String?, status: Int, code: String) {
    record(
      method: method ?? "other", route: "unparsed", status: status, duration: .zero, user: nil,
      code: code, detail: nil)
  }

  /// A TLS handshake that failed: one log line with the reason's code (`handshake_timed_out`,
  /// `rejected_by_peer`, `plaintext_peer`, …), never the peer's address.
  public func recordTLSFailure(code: String) {
    log.write(LogRecord(.info, "tls_failed", [("code", code)]))
  }

  /// Methods outside this list are counted as `other`, so a client cannot grow the metrics.
  private static let knownMethods: Set<String> = [
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
  ]

  /// One log record and the metrics of one request. Never message text, never a token.
  func recordRequest(
    method: String, route: String, status: Int, started: Timestamp, user: String?,
    failure: ServiceError?
  ) {
    record(
      method: method, route: route, status: status, duration: clock.now() - started, user: user,
      code: failure?.code.rawValue, detail: failure?.detail)
  }

  private func record(
    method: String, route: String, status: Int, duration: Duration, user: String?,
    code: String?, detail: String?
  ) {
    let method = Self.knownMethods.contains(method) ? method : "other"
    metrics.recordRequest(method: method, route: route, status: status, duration: duration)
    var fields: [(key: String, value: String)] = [
      ("method", method), ("route", route), ("status", String(status)),
      ("duration_us", String(max(0, duration.nanoseconds / 1_000))),
    ]
    if let user { fields.append(("user", user)) }
    if let code { fields.append(("code", code)) }
    if let detail { fields.append(("detail", detail)) }
    log.write(LogRecord(.info, "request", fields))
  }
}

extension ChatService {
  /// Stops the relay to other nodes and closes the store's connections (PostgreSQL's
  /// threads); for a server that stops.
  public func closeStore() async {
    relay?.stop()
    await store.close()
  }
}
