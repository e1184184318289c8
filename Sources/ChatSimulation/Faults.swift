/// Every kind of fault the simulation injects, counted per run.
public enum FaultKind: String, CaseIterable, Sendable, Comparable {
  case requestDropped = "request dropped"
  case replyLost = "reply lost after the server acted"
  case delayed = "request delayed (reordering)"
  case serverError = "5xx"
  case rateLimited = "429 with Retry-After"
  case rejected = "4xx (message refused)"
  case socketDropped = "socket dropped"
  case eventDuplicated = "socket event duplicated"
  case eventReordered = "socket events reordered"
  case eventSkipped = "socket went silent (events lost)"
  case offline = "device offline"
  case deviceKilled = "device killed"
  case serverRestarted = "server restarted"
  case powerLost = "power lost (unsynced writes gone)"
  case tokenExpired = "access token expired (401)"
  case clockSkewed = "device clock off by hours"
  case backgrounded = "app sent to the background"
  case signedOut = "signed out, signed in again"
  case spoiled = "download spoiled (a byte changed)"
  case pushDropped = "push dropped"
  case pushDelayed = "push delayed"
  case pushDuplicated = "push delivered twice"
  case pushHandled = "push handled in the background"

  public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// How often each fault strikes in one run. Drawn per seed ("swarm testing"): each kind is on
/// in some seeds and off in others, at a rate of its own, so one seed explores a storm of
/// socket drops and the next a server that keeps restarting.
struct FaultPlan: Sendable {
  /// Per HTTP request.
  var dropRequest = 0.0
  var loseReply = 0.0
  var delay = 0.0
  var serverError = 0.0
  /// Per `GET /v1/sync` on top of the others: the server answers 503 (the plan of
  /// `Focus.failingSync`; 0 in the seeds' own plans).
  var syncFailure = 0.0
  /// Per live `conversation` event: the socket goes silent there, as `skipEvent` makes it
  /// (`Focus.failingSync` only).
  var dropConversationEvent = 0.0
  var rateLimit = 0.0
  /// Per message posted for the first time: the server refuses it for good (422).
  var rejectSend = 0.0
  /// Per edit or delete posted for the first time, on top of `rejectSend` (the plan of
  /// `Focus.refusedChanges`; 0 in the seeds' own plans).
  var rejectChange = 0.0
  /// Per socket event.
  var duplicateEvent = 0.0
  var reorderEvent = 0.0
  var skipEvent = 0.0
  /// Per `GET` of media bytes: the reply's first byte changed on the way.
  var spoilDownload = 0.0
  /// Per push the gateway takes: it never reaches the device, comes up to a minute late, or
  /// comes twice (APNs promises none of these).
  var dropPush = 0.0
  var delayPush = 0.0
  var duplicatePush = 0.0
  /// Mean time between events of each kind over the whole world (nil: never).
  var socketDropEvery: Duration?
  var offlineEvery: Duration?
  var killEvery: Duration?
  var serverRestartEvery: Duration?
  /// Per device kill and per server crash: the machine lost its power, not just the process, so
  /// its SQLite files lose what was not synced (`PageCache`). Drawn from a stream of its own
  /// (`Simulation.powerRandom`), so the seeds' other draws are the ones they made before.
  var powerLoss = 0.0
  /// The server never closes a socket for its token's expiry within the run (a grace of a
  /// year): `Focus.failingSync`, where nothing else may drop a socket. Off in the seeds' own
  /// plans, whose sockets close `liveTokenGrace` after their token expired.
  var socketsOutliveTokens = false

  /// No faults: the setup and the liveness phase.
  static let none = FaultPlan()

  /// The plan for one seed.
  static func draw(_ random: inout SimRandom) -> FaultPlan {
    func rate(_ maximum: Double) -> Double {
      random.chance(0.7) ? random.unit() * maximum : 0
    }
    func every(_ range: ClosedRange<Duration>) -> Duration? {
      random.chance(0.7) ? random.duration(range) : nil
    }
    var plan = FaultPlan(
      dropRequest: rate(0.15), loseReply: rate(0.15), delay: rate(0.3),
      serverError: rate(0.15), rateLimit: rate(0.1), rejectSend: rate(0.08),
      duplicateEvent: rate(0.2), reorderEvent: rate(0.2), skipEvent: rate(0.2),
      socketDropEvery: every(.seconds(20)...(.seconds(300))),
      offlineEvery: every(.seconds(30)...(.seconds(400))),
      killEvery: every(.seconds(30)...(.seconds(400))),
      serverRestartEvery: every(.seconds(60)...(.seconds(900))))
    // Drawn last, so the plans drawn before media came keep their other rates.
    plan.spoilDownload = rate(0.2)
    plan.dropPush = rate(0.3)
    plan.delayPush = rate(0.3)
    plan.duplicatePush = rate(0.3)
    return plan
  }
}
