import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatWorld
import Foundation
import SQLite

/// One seeded run: a server, several devices each running the real client engine on its own
/// SQLite file, a simulated network and clock; a fault phase, a healed phase, then the checker.
///
/// ## Topics
/// - Running: `run(seed:options:)`
/// - The parts: `World` (time and the scheduler), `ServerNode`, `SimDevice`,
///   `Simulation+Network.swift`, `Simulation+Workload.swift`, `Checker`
final class Simulation: @unchecked Sendable {
  // @unchecked: every part is touched only on the thread that runs the simulation.

  /// Who is in the world: three users, alice on two devices.
  static let deviceNames = ["alice.phone", "alice.tablet", "bob.phone", "carol.phone"]
  /// The device that never opens the socket: it learns by long poll in the foreground and by
  /// pushes in the background, and must converge like the others.
  static let longPollingDevice = "alice.tablet"

  let seed: UInt64
  let options: SimulationOptions
  let world: World
  let history: History
  let checker: Checker
  let folder: String
  let server: ServerNode
  private(set) var devices: [SimDevice] = []

  /// The plan for the fault phase, and the one in force now (none outside that phase).
  let plan: FaultPlan
  var faults = FaultPlan.none
  var faultRandom: SimRandom
  var workloadRandom: SimRandom
  /// Part 3's actions (reactions, replies, mentions) draw from a stream of their own, so a
  /// seed's other actions are the ones it made before they came.
  var partThreeRandom: SimRandom
  /// Pins, drawn apart so that adding them left the other Part 3 actions' draws as they were.
  var pinRandom: SimRandom
  /// Drafts, drawn apart for the same reason.
  var draftRandom: SimRandom
  /// Blocks and unblocks, drawn apart for the same reason.
  var blockRandom: SimRandom
  /// Forwards, drawn apart for the same reason.
  var forwardRandom: SimRandom
  /// Whether a kill or a server crash is a power loss, drawn apart for the same reason.
  var powerRandom: SimRandom
  var faultCounts: [FaultKind: Int] = [:]
  var phase = Phase.setup

  /// The conversations, as the server created them, in creation order.
  var conversations: [ConversationInfo] = []
  /// Short names for conversation ids in the trace ("ab", "abc", …).
  var labels: [String: String] = [:]
  /// Messages a device refused on the server's behalf ("a 4xx for good"), by client message ID.
  var poisoned: Set<String> = []
  /// Client message IDs some post of which was put on the wire toward the server (a dropped
  /// one counts: the server may hold it, so a refusal for good is no longer drawn for it).
  var forwarded: Set<String> = []
  var nextText = 0
  var socketCount = 0
  /// Files picked to send so far (each its own name).
  var picked = 0
  /// Every socket not yet dropped, connected or still being connected.
  var sockets: [SimSocket] = []

  enum Phase: String {
    case setup, safety, liveness, reading, done
  }

  struct ConversationInfo {
    let id: ConversationID
    let label: String
    /// The members now, as the server's members items changed them.
    var members: [UserID]
    /// Everyone who was ever a member: a former member still lists the conversation and reads
    /// what it saw; anyone else never sees it.
    var everMembers: Set<UserID>
    /// The members it was created with, from the server's answer to the creation; nil when
    /// that answer died with the server (the conversation was learnt at the end).
    var initialMembers: [UserID]? = nil
  }

  init(seed: UInt64, options: SimulationOptions) throws {
    self.seed = seed
    self.options = options
    var scheduler = SimRandom(seed: seed, stream: "scheduler")
    world = World { scheduler.below($0) }
    history = History(world: world, keepsLines: options.keepsTrace)
    checker = Checker(history: history)
    checker.staleAfter = options.staleAfter
    folder =
      options.folder + "/chat-sim-\(getpid())-\(seed)-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // Every SQLite file of the run (the server's and the devices') is under the page-cache
    // model, so a power loss can take what was not synced.
    try PageCache.install()
    PageCache.track(folder + "/")
    var planRandom = SimRandom(seed: seed, stream: "plan")
    var plan = FaultPlan.draw(&planRandom)
    var powerRandom = SimRandom(seed: seed, stream: "power")
    plan.powerLoss = powerRandom.chance(0.7) ? powerRandom.unit() : 0
    if !options.powerLoss { plan.powerLoss = 0 }
    self.powerRandom = powerRandom
    options.focus.apply(to: &plan)
    self.plan = plan
    faultRandom = SimRandom(seed: seed, stream: "faults")
    workloadRandom = SimRandom(seed: seed, stream: "workload")
    partThreeRandom = SimRandom(seed: seed, stream: "part three")
    pinRandom = SimRandom(seed: seed, stream: "pins")
    draftRandom = SimRandom(seed: seed, stream: "drafts")
    blockRandom = SimRandom(seed: seed, stream: "blocks")
    forwardRandom = SimRandom(seed: seed, stream: "forwards")
    let ttl = Duration.seconds(planRandom.int(in: 60...900))
    server = try ServerNode(
      path: folder + "/server.sqlite", world: world, seed: seed, accessTokenTTL: ttl,
      liveTokenGrace: plan.socketsOutliveTokens ? .seconds(365 * 86_400) : nil,
      knownBugs: options.serverKnownBugs)
    for name in Self.deviceNames {
      let skewed = planRandom.chance(0.4)
      let hours = planRandom.int(in: -12...12)
      let offset: Duration = skewed && hours != 0 ? .seconds(hours * 3600) : .zero
      devices.append(
        SimDevice(name: name, path: folder + "/\(name).sqlite", clockOffset: offset))
    }
    server.pushes.onPush = { [unowned self] delivery in deliver(delivery) }
  }

  deinit { PageCache.forget(folder + "/") }

  func count(_ kind: FaultKind, _ times: Int = 1) {
    faultCounts[kind, default: 0] += times
  }

  func device(named name: String) -> SimDevice? {
    devices.first { $0.name == name }
  }

  func label(_ conversation: ConversationID) -> String {
    labels[conversation.rawValue.lowercased()] ?? String(conversation.rawValue.prefix(8))
  }

  func members(of conversation: ConversationID) -> [UserID]? {
    conversations.first { $0.id == conversation }?.members
  }

  /// Everyone who was ever a member of `conversation`; nil for a conversation not yet known.
  func everMembers(of conversation: ConversationID) -> Set<UserID>? {
    conversations.first { $0.id == conversation }?.everMembers
  }

  /// A short, unique and recognisable message text. Every text holds the word "sim" (so a
  /// search finds every message on a device) and a number no other send uses.
  /// `partThree`: drawn from Part 3's own stream (`partThreeRandom`).
  func makeText(for device: SimDevice, partThree: Bool = false) -> String {
    nextText += 1
    let tag = "sim \(device.name)-\(nextText) \(Self.marker(nextText))"
    let variant = partThree ? partThreeRandom.below(20) : workloadRandom.below(20)
    switch variant {
    case 0: return tag + " café"  // precomposed é
    case 1: return tag + " cafe\u{301}"  // e + combining acute: other bytes, same glyph
    case 2: return tag + " 👩‍👩‍👧 \u{0}"  // a family emoji and a NUL
    case 3:
      // Exactly the longest text the contract allows, in Unicode scalars.
      let filler = String(repeating: "x", count: 4096 - tag.unicodeScalars.count - 1)
      return tag + " " + filler
    default:
      return tag + " "
        + (partThree ? partThreeRandom.pick(Self.words) : workloadRandom.pick(Self.words))
    }
  }

  /// Three CJK characters unique to text `number` of a run: one word of both search indexes
  /// (the `unicode61` one and, being unspaced, the `trigram` one), whose bytes the end's check
  /// looks for in the files of every device that saw the text deleted. The first character
  /// differs between texts, so an index page that stores a term after a neighbour sharing its
  /// first bytes still stores the last two characters whole: `markerBytes`.
  static func marker(_ number: Int) -> String {
    // (Setup texts count from `setupMarkers`, workload texts from 1: no first character twice
    // in a run of fewer than 5,000 workload texts.)
    let first = 0x3400 + number % 6_592  // CJK Extension A
    let second = 0x4E00 + number % 20_992  // CJK Unified Ideographs
    let third = 0x4E00 + (number &* 7_919) % 20_992
    return String(String.UnicodeScalarView([first, second, third].compactMap(Unicode.Scalar.init)))
  }

  static let setupMarkers = 5_000

  /// The bytes the end's check looks for of a workload text: its marker's last two
  /// characters; nil for a text without one.
  static func markerBytes(of text: String) -> [UInt8]? {
    let words = text.split(separator: " ")
    guard let word = words.dropFirst(text.hasPrefix("edit ") ? 3 : 2).first,
      word.unicodeScalars.count == 3
    else { return nil }
    return Array(String(word.unicodeScalars.dropFirst()).utf8)
  }

  static let words = [
    "on my way", "see you", "ok", "lunch?", "running late", "🚲", "call me", "hiking tomorrow",
  ]
}

/// One phone or tablet: its database file survives kills; each launch of the engine on it is
/// an incarnation.
final class SimDevice: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  let name: String
  let user: UserID
  let deviceID: DeviceID
  let path: String
  let clockOffset: Duration
  private(set) var incarnations: [Incarnation] = []
  /// The running incarnation; nil while the device is dead (killed, not yet relaunched).
  var current: Incarnation?
  /// False while the app is in the background (`stop()`ped).
  var isForeground = true
  /// The network is down for this device until then.
  var offlineUntil: Duration = .zero
  /// Open sockets, oldest first.
  var sockets: [SimSocket] = []
  /// Set while a kill is armed: the device dies after this many more of its jobs.
  var killCountdown: Int?

  init(name: String, path: String, clockOffset: Duration) {
    self.name = name
    let parts = name.split(separator: ".")
    user = UserID(String(parts[0]))
    deviceID = DeviceID(String(parts[1]))
    self.path = path
    self.clockOffset = clockOffset
  }

  var nextIncarnation: Int { incarnations.count + 1 }

  func launched(_ incarnation: Incarnation) {
    incarnations.append(incarnation)
    current = incarnation
  }
}

/// One launch of the engine on a device.
final class Incarnation: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  let name: String
  let executor: SteppedExecutor
  var engine: ChatEngine?
  /// The screens open now: one task per conversation reading `messages(in:)`.
  var views: [ConversationID: Task<Void, Never>] = [:]
  var listTask: Task<Void, Never>?
  /// Watches for the session ending (then the user signs in again).
  var sessionTask: Task<Void, Never>?
  /// What each open screen shows now.
  var latest: [ConversationID: [Message]] = [:]
  /// Screens the user closed (not reopened when the list changes).
  var closed: Set<ConversationID> = []
  /// The conversation list, as the device last showed it.
  var known: [ConversationSummary] = []
  /// Follows the outbox (`watchOutbox`), when sends can go stale.
  var outboxTask: Task<Void, Never>?
  /// The messages the outbox shows held now (with their conversations), and those whose user
  /// is about to answer.
  var held: [MessageID: ConversationID] = [:]
  var answering: Set<MessageID> = []

  init(name: String, executor: SteppedExecutor) {
    self.name = name
    self.executor = executor
  }
}
