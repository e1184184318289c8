import Support

/// The counters behind `GET /metrics`, kept by the service on its executor; the live fan-out
/// and the push dispatcher keep their own (`LiveFanOut.Counters`, `PushDispatcher.Counters`),
/// rendered here too.
///
/// Labels are route patterns (`/v1/conversations/{id}/messages`), methods and statuses; never
/// ids, message text or tokens. The text is written in a fixed order (series sorted), so two
/// runs with the same inputs print the same page.
struct ServiceMetrics {
  struct RequestKey: Hashable, Comparable {
    var method: String
    var route: String
    var status: Int

    static func < (lhs: RequestKey, rhs: RequestKey) -> Bool {
      (lhs.route, lhs.method, lhs.status) < (rhs.route, rhs.method, rhs.status)
    }
  }

  /// Upper bounds (seconds) of the request-duration histogram buckets.
  static let durationBounds: [Double] = [
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]

  private(set) var requests: [RequestKey: Int] = [:]
  private var durationBucketCounts = [Int](repeating: 0, count: durationBounds.count)
  private var durationSum = 0.0
  private var durationCount = 0
  var sendsAccepted = 0
  var retriesRecognised = 0
  var liveFramesIgnored = 0
  var mediaDeletesFailed = 0
  var refreshTokenReuses = 0
  var typingFramesDropped = 0
  var catchUpsShed = 0

  mutating func recordRequest(method: String, route: String, status: Int, duration: Duration) {
    requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
    let seconds = max(0, duration.secondsValue)
    if let bucket = Self.durationBounds.firstIndex(where: { seconds <= $0 }) {
      durationBucketCounts[bucket] += 1
    }
    durationSum += seconds
    durationCount += 1
  }

  /// The Prometheus text exposition (format 0.0.4).
  func render(
    liveSubscriptionsOpen: Int, longPollsHeld: Int, live: LiveFanOut.Counters,
    pushes: PushDispatcher.Counters, store: StoreStatistics
  ) -> String {
    var lines: [String] = []
    func family(_ name: String, _ type: String, _ help: String) {
      lines.append("# HELP \(name) \(help)")
      lines.append("# TYPE \(name) \(type)")
    }
    family("chat_requests_total", "counter", "Requests answered, by method, route and status.")
    for (key, count) in requests.sorted(by: { $0.key < $1.key }) {
      lines.append(
        "chat_requests_total{method=\"\(key.method)\",route=\"\(key.route)\",status=\"\(key.status)\"} \(count)"
      )
    }
    family("chat_request_duration_seconds", "histogram", "Time to answer a request.")
    var cumulative = 0
    for (bound, count) in zip(Self.durationBounds, durationBucketCounts) {
      cumulative += count
      lines.append("chat_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
    }
    lines.append("chat_request_duration_seconds_bucket{le=\"+Inf\"} \(durationCount)")
    lines.append("chat_request_duration_seconds_sum \(durationSum)")
    lines.append("chat_request_duration_seconds_count \(durationCount)")
    let counters: [(String, String, Int)] = [
      ("chat_sends_accepted_total", "Messages stored for the first time.", sendsAccepted),
      (
        "chat_send_retries_recognised_total",
        "Sends answered with the message already stored (same clientMessageId and text).",
        retriesRecognised
      ),
      (
        "chat_live_events_total", "Event frames handed to live subscriptions.", live.eventsFannedOut
      ),
      (
        "chat_relay_events_received_total",
        "Live events other nodes published, received through PostgreSQL.", live.eventsRelayed
      ),
      (
        "chat_relay_resumes_total",
        "Times the relay's listener came back after a cut (live sockets closed to catch up).",
        live.relayResumes
      ),
      (
        "chat_live_frames_ignored_total",
        "Client frames ignored (malformed, unknown or not allowed).",
        liveFramesIgnored
      ),
      (
        "chat_live_typing_dropped_total",
        "Typing frames not relayed: over the socket's typing budget.", typingFramesDropped
      ),
      (
        "chat_live_subscriptions_dropped_total",
        "Live subscriptions closed because they fell too far behind.", live.subscriptionsDropped
      ),
      (
        "chat_catch_ups_shed_total",
        "Catch-up reads answered 503: more were in flight than the server serves at once.",
        catchUpsShed
      ),
      (
        "chat_media_deletes_failed_total",
        "Deleted messages whose media bytes the store could not delete.", mediaDeletesFailed
      ),
      ("chat_pushes_sent_total", "Pushes the gateway accepted.", pushes.sent),
      (
        "chat_pushes_collapsed_total",
        "Messages whose push replaced one still owed for the same conversation and device.",
        pushes.collapsed
      ),
      (
        "chat_pushes_failed_total",
        "Pushes dropped: refused by the gateway, or its attempts used up.", pushes.failed
      ),
      ("chat_push_retries_total", "Deliveries to the gateway to be tried again.", pushes.retries),
      (
        "chat_push_tokens_removed_total", "Device tokens forgotten because the gateway said 410.",
        pushes.tokensRemoved
      ),
      (
        "chat_refresh_token_reuses_total",
        "Spent refresh tokens presented again: each revoked its family (the theft signal).",
        refreshTokenReuses
      ),
      ("chat_store_commits_total", "Write transactions committed (group commits).", store.commits),
      (
        "chat_store_committed_writes_total",
        "Writes (sends, receipts, …) in committed transactions.",
        store.committedWrites
      ),
      (
        "chat_store_failed_commits_total", "Write transactions that failed as a whole.",
        store.failedCommits
      ),
      (
        "chat_store_erasure_passes_total",
        "Passes that took deleted and edited text out of the files (SQLite) or VACUUMs "
          + "(PostgreSQL).", store.erasurePasses
      ),
      (
        "chat_store_erasures_failed_total",
        "Erasure steps, checkpoints or VACUUMs that failed (retried by the next pass).",
        store.failedErasures
      ),
    ]
    for (name, help, value) in counters {
      family(name, "counter", help)
      lines.append("\(name) \(value)")
    }
    family("chat_live_subscriptions_open", "gauge", "Live subscriptions open now.")
    lines.append("chat_live_subscriptions_open \(liveSubscriptionsOpen)")
    family("chat_long_polls_held", "gauge", "GET /v1/sync?wait= requests held now.")
    lines.append("chat_long_polls_held \(longPollsHeld)")
    family(
      "chat_store_erasure_owed", "gauge",
      "1 while a stored delete or edit waits for its erasure pass or VACUUM, else 0.")
    lines.append("chat_store_erasure_owed \(store.erasureOwed ? 1 : 0)")
    return lines.joined(separator: "\n") + "\n"
  }
}
