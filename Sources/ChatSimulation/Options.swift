import ChatData
import ChatServer
import Foundation

/// How big one run is.
public enum Profile: String, Sendable, CaseIterable {
  /// The default, for CI and `chat-sim`: an 8-minute fault phase.
  case quick
  /// A 25-minute fault phase and more history: fewer seeds per second, longer storms.
  case full

  /// Simulated length of the safety phase (faults on).
  var safetyPhase: Duration {
    switch self {
    case .quick: .seconds(8 * 60)
    case .full: .seconds(25 * 60)
    }
  }

  /// Longest the liveness phase may take before the world must be quiet.
  var livenessBudget: Duration { .seconds(30 * 60) }

  /// Most messages the group conversation holds before the devices sign in (so history pages).
  var seededHistory: ClosedRange<Int> {
    switch self {
    case .quick: 0...70
    case .full: 0...130
    }
  }

  /// The range a pause between two actions of one user on one device is drawn from.
  var thinkTime: ClosedRange<Duration> {
    switch self {
    case .quick: .seconds(2)...(.seconds(40))
    case .full: .seconds(2)...(.seconds(60))
    }
  }
}

/// A fault plan aimed at one rule, on top of each seed's own.
package enum Focus: String, Sendable, CaseIterable {
  /// The seed's plan as it is.
  case none
  /// Through the fault phase every `/v1/sync` fails (503), and a socket that should carry a
  /// `conversation` event goes silent there and is found dead (as a lost event is lost over
  /// TCP: with the connection); nothing else drops a socket (no drops, kills, restarts,
  /// offline spells or token expiries). A member of a conversation created meanwhile reconnects, and the sync of
  /// its reconnect fails: a device that does not try it again never lists the conversation.
  case failingSync
  /// Half the edits and deletes the server has not seen yet are refused for good (422): each
  /// refusal must leave its message as the server has it.
  case refusedChanges
  /// Half the downloads of media bytes come back spoiled (a byte changed on the way): each
  /// must be refused by its sha256 and nothing kept.
  case spoiledDownloads
  /// Every device kill and server crash is a power loss too, and both come often (one device
  /// or another dies about every minute, the server about every two): what a commit did not
  /// sync is lost again and again.
  case powerLoss

  func apply(to plan: inout FaultPlan) {
    switch self {
    case .none:
      break
    case .powerLoss:
      plan.powerLoss = 1
      plan.killEvery = .seconds(60)
      plan.serverRestartEvery = .seconds(120)
    case .spoiledDownloads:
      plan.spoilDownload = 0.5
    case .refusedChanges:
      plan.rejectChange = 0.5
    case .failingSync:
      plan.syncFailure = 1
      plan.dropConversationEvent = 1
      plan.socketDropEvery = nil
      plan.killEvery = nil
      plan.serverRestartEvery = nil
      plan.offlineEvery = nil
      plan.socketsOutliveTokens = true
      plan.skipEvent = 0
    }
  }
}

/// What to run.
public struct SimulationOptions: Sendable {
  public var profile: Profile
  /// Keep every trace line (needed for excerpts and for comparing two runs line by line); the
  /// hash is computed either way.
  public var keepsTrace: Bool
  /// Where each run makes its folder of database files (deleted afterwards).
  public var folder: String
  /// Test-only: known bugs put back (see `KnownBugs`).
  package var knownBugs: KnownBugs = []
  /// Test-only: known server bugs put back (see `ServerKnownBugs`).
  package var serverKnownBugs: ServerKnownBugs = []
  /// Test-only: a fault plan aimed at one rule, so a bug that breaks it rarely under the seeds'
  /// own plans shows within a few seeds.
  package var focus: Focus = .none
  /// Users also edit and delete their own messages; on by default, off with `chat-sim
  /// --without-edits`. It found that a refused edit or delete left the device showing it
  /// (`undoRefused`).
  public var editsAndDeletes = true
  /// Kills and server crashes may be power losses (`FaultPlan.powerLoss`); on by default, off
  /// with `chat-sim --without-power-loss` (the faults before issue 38: the same histories but
  /// for the power losses, which draw from a stream of their own).
  public var powerLoss = true
  /// Users also add members to their groups, remove them and leave; on by default, off with
  /// `chat-sim --without-member-changes`.
  public var memberChanges = true
  /// Users also react, reply (quoting) and mention each other (API.md Part 3), beside their
  /// other actions; on by default, off with `chat-sim --without-part-three`.
  public var partThree = true
  /// Users also send photos and documents (uploads as outbox steps, through every fault) and
  /// download others'; on by default, off with `chat-sim --without-media`.
  public var media = true
  /// Every device keeps a window of this many messages per conversation (its retention
  /// setting) and prunes when it goes to the background and once more before the end is read
  /// (`chat-sim --retain-messages N`); nil: devices keep everything. A pruned message is not
  /// lost: the checker finds it on the server with the device's server search.
  public var retainMessages: Int?
  /// Every device's stale-send threshold (`chat-sim --stale-after SECONDS`): a message that
  /// waited longer in its outbox is held, and its user sends it now or discards it, drawn
  /// from the seed. nil: the engine's default (24 h), which no run reaches.
  public var staleAfter: Duration?

  public init(profile: Profile = .quick, keepsTrace: Bool = true, folder: String? = nil) {
    self.profile = profile
    self.keepsTrace = keepsTrace
    self.folder = folder ?? Self.defaultFolder
  }

  /// `/dev/shm` when there is one (SQLite's fsyncs cost nothing there), else the temporary
  /// folder.
  public static var defaultFolder: String {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder),
      isFolder.boolValue, access("/dev/shm", W_OK) == 0
    {
      return "/dev/shm"
    }
    return NSTemporaryDirectory()
  }
}

extension SimulationOptions {
  /// Every known bug's name, the client's (`KnownBugs`) and the server's (`ServerKnownBugs`).
  package static var knownBugNames: [String] {
    KnownBugs.byName.map(\.name) + ServerKnownBugs.byName.map(\.name)
  }

  /// Puts back the known bug called `name`; false when no bug has that name.
  package mutating func putBack(_ name: String) -> Bool {
    if let bug = KnownBugs.byName.first(where: { $0.name == name })?.bug {
      knownBugs.insert(bug)
      return true
    }
    if let bug = ServerKnownBugs.byName.first(where: { $0.name == name })?.bug {
      serverKnownBugs.insert(bug)
      return true
    }
    return false
  }
}
