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
/// - Parts it composes, one job each: `AccessTokenCache` (which tokens are good),
///   `RateLimits` (the budgets), `LiveFanOut` (sockets, long polls, the node relay),
///   `ReceiptCoalescer` (`receipts` frames), `PushDispatcher` (pushes to the gateway)
public actor ChatService {
  let store: ServerStore
  let configuration: ServerConfiguration
  let clock: any TimeSource
  /// The only source of randomness, shared with `pushes` (its backoff jitter).
  var random: SharedRandom
  /// Where the service runs: a relay delivers the other nodes' events here, one job each.
  package nonisolated let executor: any SerialTaskExecutor
  let log: any LogSink
  /// Where media bytes go; nil: the media routes answer 503.
  let media: (any MediaStorage)?
  /// Which access tokens are good: signed here, checked once each, families revoked.
  var tokens: AccessTokenCache
  /// The budgets per user, per address and per socket's typing.
  var rates: RateLimits
  /// Live events to sockets, long polls and the other nodes.
  var fanOut: LiveFanOut
  /// Receipt changes being coalesced into `receipts` frames, by conversation.
  var receipts = ReceiptCoalescer()
  var metrics = ServiceMetrics()
  /// Catch-up reads running now (`admittingCatchUp`).
  var catchUpsInFlight = 0
  /// Hands the pushes owed to the gateway; nil without one: no push is queued (tokens are
  /// still kept).
  let pushes: PushDispatcher?

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
    var random = random
    let key = configuration.signingKey ?? SigningKey.generate(using: &random)
    let shared = SharedRandom(random)
    self.store = store
    self.configuration = configuration
    self.clock = clock
    self.random = shared
    self.executor = executor
    self.log = log
    self.media = media
    self.tokens = AccessTokenCache(signer: AccessTokenSigner(key: key))
    self.rates = RateLimits(configuration)
    let fanOut = LiveFanOut(relay: relay, log: log)
    self.fanOut = fanOut
    self.pushes = pushGateway.map {
      PushDispatcher(
        gateway: $0, store: store, clock: clock, random: shared, executor: executor, log: log,
        online: fanOut.hub.devicesOnline)
    }
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
        liveSubscriptionsOpen: fanOut.hub.openCount, longPollsHeld: fanOut.longPolls.heldCount,
        live: fanOut.counters, pushes: await pushes?.counters ?? PushDispatcher.Counters(),
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
    case .draft(let conversation):
      return try await saveDraft(conversation, request, by: caller.userId, at: now)
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
    case .blockedUsers:
      return try await blockedUsers(of: caller.userId)
    case .block(let user):
      return try await setBlocked(user, by: caller.userId, block: true)
    case .unblock(let user):
      return try await setBlocked(user, by: caller.userId, block: false)
    default:
      // Unknown, or a route of API.md this server does not serve yet.
      throw ServiceError.unknownRoute
    }
  }

  /// Spends one request of the peer address's budget (`ServerConfiguration.addressRateLimit`):
  /// 429 with `Retry-After` when it is spent. These requests carry no token, so API.md's 401
  /// before 429 does not apply: the budget comes first.
  func takeAddressBudget(_ request: APIRequest, at now: Timestamp) throws(ServiceError) {
    try rates.spend(address: request.peerAddress, at: now)
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
    fanOut.relay?.stop()
    await store.close()
  }
}
