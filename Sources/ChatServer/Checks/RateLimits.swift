import ChatAPI
import Support

/// The service's three budgets, each a `RateLimiter` of its own (nil: that budget is off):
/// requests per user (`ServerConfiguration.rateLimit`), requests without a valid token per
/// peer address (`addressRateLimit`), and typing frames per live socket (`typingLimit`).
///
/// Rules a reader could not guess:
/// - A user's budget is spent only once the token is valid (API.md: 401 before 429); an
///   address's by the requests that carry no token (sign-in, refresh) and by a `/v1/live`
///   upgrade whose token was refused, before anything else is said about them.
/// - A request without a peer address (the tests, the simulation) spends no address budget.
/// - A spent typing budget drops the frame (the caller counts it); it is never an error.
struct RateLimits {
  private var users: RateLimiter?
  private var addresses: RateLimiter?
  private var typing: RateLimiter?

  init(_ configuration: ServerConfiguration) {
    users = configuration.rateLimit.map(RateLimiter.init(limit:))
    addresses = configuration.addressRateLimit.map(RateLimiter.init(limit:))
    typing = configuration.typingLimit.map(RateLimiter.init(limit:))
  }

  /// Spends one request of `user`'s budget: 429 with `Retry-After` when it is spent.
  mutating func spend(user: String, at now: Timestamp) throws(ServiceError) {
    guard let wait = users?.take(for: user, at: now) else { return }
    throw ServiceError(.rateLimited, "Too many requests; retry later.", retryAfterSeconds: wait)
  }

  /// Spends one request of the peer address's budget: 429 with `Retry-After` when it is spent.
  mutating func spend(address: String?, at now: Timestamp) throws(ServiceError) {
    guard let address, let wait = addresses?.take(for: address, at: now) else { return }
    throw ServiceError(
      .rateLimited, "Too many requests from this address; retry later.", retryAfterSeconds: wait)
  }

  /// Whether live subscription `socket` may relay one more typing frame now.
  mutating func allowsTyping(on socket: UInt64, at now: Timestamp) -> Bool {
    typing?.take(for: String(socket), at: now) == nil
  }

  /// The socket closed: its typing bucket goes.
  mutating func forget(socket: UInt64) {
    typing?.forget(String(socket))
  }
}
