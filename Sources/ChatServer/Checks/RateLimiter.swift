import Support

/// Token buckets by key: a user, an address or a socket (see `RateLimit`). Time comes from the
/// caller, so it is exact in tests.
struct RateLimiter {
  private struct Bucket {
    var tokens: Double
    var updatedAt: Timestamp
  }

  let limit: RateLimit
  private var buckets: [String: Bucket] = [:]
  /// Above this many buckets, full ones are forgotten (a full bucket is what a new user gets).
  private var pruneThreshold = 4_096

  init(limit: RateLimit) {
    self.limit = limit
  }

  /// Keys with a bucket in memory.
  var trackedUsers: Int { buckets.count }

  /// Takes one token from `key`'s bucket. Returns nil when allowed, or the whole seconds
  /// (at least 1) until a token will be there.
  mutating func take(for key: String, at now: Timestamp) -> Int? {
    var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updatedAt: now)
    let elapsed = max(0, (now - bucket.updatedAt).secondsValue)
    bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
    bucket.updatedAt = now
    defer {
      buckets[key] = bucket
      if buckets.count > pruneThreshold { prune(at: now) }
    }
    if bucket.tokens >= 1 {
      bucket.tokens -= 1
      return nil
    }
    let wait = (1 - bucket.tokens) / limit.perSecond
    return max(1, Int(wait.rounded(.up)))
  }

  /// Forgets `key`'s bucket: a socket that closed.
  mutating func forget(_ key: String) {
    buckets[key] = nil
  }

  private mutating func prune(at now: Timestamp) {
    let full = Double(limit.burst)
    buckets = buckets.filter { _, bucket in
      bucket.tokens + max(0, (now - bucket.updatedAt).secondsValue) * limit.perSecond < full
    }
    pruneThreshold = max(4_096, buckets.count * 2)
  }
}
