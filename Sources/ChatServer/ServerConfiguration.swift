import ChatAPI

/// How a `ChatService` behaves. The defaults are API.md's.
public struct ServerConfiguration: Sendable {
  /// Enables `POST /v1/auth/dev-login` (anyone signs in as any user); 404 otherwise.
  public var devMode: Bool
  /// How long an access token is valid (`--access-token-ttl`, default 900 s).
  public var accessTokenTTL: Duration
  /// How long an unused refresh token is valid.
  public var refreshTokenTTL: Duration
  /// Larger request bodies are refused with 413 (default 64 KiB).
  public var maxBodyBytes: Int
  /// The per-user request budget; nil turns rate limiting off (benchmarks).
  public var rateLimit: RateLimit?
  /// The per-address budget of what is asked without a valid token: `POST /v1/auth/dev-login`,
  /// `POST /v1/auth/refresh`, and a `/v1/live` upgrade whose token is refused (so a loop of
  /// bad upgrades slows down; a valid one only spends its user's budget). The address is the
  /// connection's (`APIRequest.peerAddress`): a request without one (in-process) has no such
  /// budget. Generous by default: devices behind one NAT share it. Nil: off.
  public var addressRateLimit: RateLimit? = RateLimit(burst: 60, perSecond: 1)
  /// Typing frames relayed per live socket; the rest are dropped (counted, never an error: a
  /// typing hint is best effort). Nil: off.
  public var typingLimit: RateLimit? = RateLimit(burst: 5, perSecond: 1)
  /// The key that signs access tokens. Nil: the service draws one from its random source, so
  /// tokens die with the process (memory mode). A server with a data folder passes
  /// `SigningKey.loadOrCreate(inFolder:using:)`.
  public var signingKey: SigningKey?
  /// Events a live subscription may hold unread; one more closes it (the client reconnects and
  /// catches up), so a stalled socket cannot grow the server's memory without bound.
  public var liveEventBufferLimit: Int
  /// How long a live socket stays open past the expiry of the access token it opened with;
  /// then the service closes it ("token expired"), and the client refreshes and reconnects.
  /// The grace lets a client that refreshed just in time reconnect on its own schedule.
  public var liveTokenGrace: Duration = .seconds(30)
  /// The largest image and document an upload may declare (413 above).
  public var maxImageBytes = APILimits.defaultMaxImageBytes
  public var maxFileBytes = APILimits.defaultMaxFileBytes
  /// Catch-up reads (`/v1/sync`, a page of a conversation) served at once; past it they are
  /// answered 503 with `Retry-After` (`ChatService.admittingCatchUp`), so a crowd reconnecting
  /// together cannot queue without bound.
  public var maxCatchUpsInFlight = 64
  /// Days media bytes are kept after their upload; past them a download is 410 and the bytes
  /// are deleted (text and thumbnails stay).
  public var mediaRetentionDays = 365
  /// Test-only: known server bugs put back (`ServerKnownBugs`); a real server has none.
  package var knownBugs: ServerKnownBugs = []

  public init(
    devMode: Bool = false,
    accessTokenTTL: Duration = .seconds(900),
    refreshTokenTTL: Duration = .seconds(30 * 24 * 3600),
    maxBodyBytes: Int = 64 * 1024,
    rateLimit: RateLimit? = RateLimit(),
    signingKey: SigningKey? = nil,
    liveEventBufferLimit: Int = 4096
  ) {
    self.devMode = devMode
    self.accessTokenTTL = accessTokenTTL
    self.refreshTokenTTL = refreshTokenTTL
    self.maxBodyBytes = maxBodyBytes
    self.rateLimit = rateLimit
    self.signingKey = signingKey
    self.liveEventBufferLimit = liveEventBufferLimit
  }
}

/// Test-only switches that put known server bugs back, so the simulation can prove its checker
/// catches each of them (`Tests/SimulationTests/KnownBugTests.swift`); the client's are
/// `KnownBugs`. Off by default; nothing outside the package can turn them on.
/// - `deliverToRemovedMembers`: a new item goes live to every user who was ever a member, so a
///   removed member's open socket still hears the group (`ChatService.post`). API.md: "a
///   removed member's sockets get the members item that removed them, then nothing more".
/// - `acceptBlockedPosts`: a post in a one-to-one conversation is accepted though the other
///   member blocked its sender (API.md Part 3: 403).
/// - `deleteDropsSharedMedia`: a delete drops its media's bytes though a forward still
///   carries them (API.md Part 3: shared bytes live while any carrying message does).
package struct ServerKnownBugs: OptionSet, Sendable, Hashable {
  package let rawValue: Int

  package init(rawValue: Int) { self.rawValue = rawValue }

  package static let deliverToRemovedMembers = ServerKnownBugs(rawValue: 1 << 0)
  package static let acceptBlockedPosts = ServerKnownBugs(rawValue: 1 << 1)
  package static let deleteDropsSharedMedia = ServerKnownBugs(rawValue: 1 << 2)
  /// The store commits with `synchronous=NORMAL` and acknowledges before the log is synced: a
  /// power loss takes messages the server answered 201 for (issue 38).
  package static let acknowledgeUnsynced = ServerKnownBugs(rawValue: 1 << 3)

  /// Each switch by the name tools and tests use for it.
  package static let byName: [(name: String, bug: ServerKnownBugs)] = [
    ("deliverToRemovedMembers", .deliverToRemovedMembers),
    ("acceptBlockedPosts", .acceptBlockedPosts),
    ("deleteDropsSharedMedia", .deleteDropsSharedMedia),
    ("acknowledgeUnsynced", .acknowledgeUnsynced),
  ]
}

/// A token bucket: `burst` requests at once, refilled at `perSecond` (per user, per address or
/// per socket, as `ServerConfiguration` says).
public struct RateLimit: Sendable, Equatable {
  public var burst: Int
  public var perSecond: Double

  public init(burst: Int = 100, perSecond: Double = 20) {
    precondition(burst >= 1 && perSecond > 0, "a rate limit needs burst ≥ 1 and a positive rate")
    self.burst = burst
    self.perSecond = perSecond
  }
}
