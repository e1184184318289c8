import ChatDomain
import ChatIdentifiers
import ChatWorld
import Support

/// Everything that happened in one run, in order: the trace every line of which feeds the
/// run's hash, and the operations the checker reads (Jepsen's history: each operation invoked,
/// then completed with a value, failed, or left indeterminate by a kill).
final class History: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.

  /// One `send` a device was asked to do.
  struct Send {
    let number: Int
    let device: String
    let user: UserID
    let conversation: ConversationID
    let text: String
    /// Set when `send` returned: the row is saved as sending, under this ID.
    var savedAs: MessageID?
    /// When `send` was called and when it returned, as positions in the history's order of
    /// operations: a send invoked after another returned was written after it.
    let invokedAt: Int
    var savedAt: Int?
  }

  /// A reply the server produced to `POST …/messages` (whether or not it reached the device).
  struct Acknowledgement {
    let conversation: ConversationID
    let clientMessageID: String
    let sender: String
    let sequence: Int
  }

  /// One edit (a text) or delete (none) of a device's own message it was asked to make.
  struct Change {
    let device: String
    let user: UserID
    let conversation: ConversationID
    let target: MessageID
    let text: String?
    /// Set when the call returned: saved here, changed or queued.
    var returned = false
  }

  private(set) var lines: [String] = []
  private(set) var changes: [Change] = []
  private(set) var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  private(set) var sends: [Send] = []
  /// The sha256 of each media message's bytes, as its sender picked them, by message ID.
  private(set) var mediaSent: [MessageID: String] = [:]
  /// Downloads of others' media that returned (each checked by the checker).
  var downloads = 0
  /// API.md Part 3's actions.
  var partThree = PartThreeCounts()
  /// Each time a user's block of another was surely in force on the server: from when the
  /// block's 204 came back to when its unblock was asked for (nil: never).
  private(set) var blockWindows: [BlockWindow] = []

  struct BlockWindow {
    let blocker: UserID
    let blocked: UserID
    let from: Timestamp
    var until: Timestamp?
  }

  /// Whether `blocker` blocked `blocked` as far as the history knows (a block that returned,
  /// not yet undone).
  func isBlocking(_ blocker: UserID, _ blocked: UserID) -> Bool {
    blockWindows.contains { $0.blocker == blocker && $0.blocked == blocked && $0.until == nil }
  }

  /// A block's 204 came back at `time`.
  func blockReturned(_ blocker: UserID, _ blocked: UserID, at time: Timestamp) {
    guard !isBlocking(blocker, blocked) else { return }
    blockWindows.append(BlockWindow(blocker: blocker, blocked: blocked, from: time))
  }

  /// An unblock was asked for at `time`: the block may end from then on.
  func unblockInvoked(_ blocker: UserID, _ blocked: UserID, at time: Timestamp) {
    for index in blockWindows.indices
    where blockWindows[index].blocker == blocker && blockWindows[index].blocked == blocked
      && blockWindows[index].until == nil
    {
      blockWindows[index].until = time
    }
  }
  /// Items the devices' upkeep pruned; messages below a history floor at the end the
  /// server search was asked for, and those it found.
  var pruned = 0
  var prunedSearched = 0
  var prunedFound = 0
  private(set) var acknowledgements: [Acknowledgement] = []
  /// Client message IDs a device got a 4xx for (the only ones allowed to end failed).
  private(set) var refusedIDs: Set<String> = []
  /// Client message IDs whose delete a device got a 4xx for: the message stays on the server.
  private(set) var refusedDeletes: Set<String> = []
  /// Operations so far (invocations and returns), to order sends.
  private var operations = 0
  private let world: World
  private let keepsLines: Bool

  init(world: World, keepsLines: Bool = true) {
    self.world = world
    self.keepsLines = keepsLines
  }

  /// The simulated time now.
  var now: Duration { world.now }

  /// Adds a line to the trace, stamped with the simulated time.
  func trace(_ text: String) {
    let line = "\(Self.stamp(world.now)) \(text)"
    for byte in line.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    hash = (hash ^ 0x0A) &* 0x0000_0100_0000_01B3
    if keepsLines { lines.append(line) }
  }

  /// `[mmm:ss.mmm]`
  static func stamp(_ time: Duration) -> String {
    let total = time.milliseconds
    let minutes = total / 60_000
    let seconds = (total / 1000) % 60
    let millis = total % 1000
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "[\(pad(minutes, 3)):\(pad(seconds, 2)).\(pad(millis, 3))]"
  }

  // MARK: - Operations

  func invokeSend(device: String, user: UserID, conversation: ConversationID, text: String) -> Int {
    let number = sends.count
    operations += 1
    sends.append(
      Send(
        number: number, device: device, user: user, conversation: conversation, text: text,
        savedAs: nil, invokedAt: operations))
    return number
  }

  /// A media send was saved as `id`: its bytes' sha256 is what every download must give.
  func mediaSaved(_ id: MessageID, sha256: String) {
    mediaSent[id] = sha256
  }

  /// One forward a device was asked for (API.md Part 3): `message` of `source` copied into
  /// `conversation`, saved as `savedAs` when the call returned (a kill may cut it short after
  /// the row was saved).
  struct Forward {
    let device: String
    let user: UserID
    let source: ConversationID
    let message: MessageID
    let conversation: ConversationID
    var savedAs: MessageID?
  }

  private(set) var forwards: [Forward] = []
  /// The media key each message the server accepted carried, by client message ID
  /// (lowercased): what a delete must free once no message carries it any more.
  private(set) var mediaKeys: [String: String] = [:]

  func forwardInvoked(_ forward: Forward) -> Int {
    forwards.append(forward)
    return forwards.count - 1
  }

  /// A forward was saved as `id`: its media (if any) is the bytes the original's sender picked.
  func forwardSaved(_ number: Int, as id: MessageID) {
    forwards[number].savedAs = id
    if let sha = mediaSent[forwards[number].message] { mediaSent[id] = sha }
  }

  /// The server accepted `id` carrying media `key`.
  func carried(_ key: String, by id: String) {
    mediaKeys[id.lowercased()] = key
  }

  func sendSaved(_ number: Int, as id: MessageID) {
    operations += 1
    sends[number].savedAs = id
    sends[number].savedAt = operations
  }

  func invokeChange(_ change: Change) -> Int {
    operations += 1
    changes.append(change)
    return changes.count - 1
  }

  func changeReturned(_ number: Int) {
    operations += 1
    changes[number].returned = true
  }

  func acknowledged(_ acknowledgement: Acknowledgement) {
    acknowledgements.append(acknowledgement)
  }

  func refused(clientMessageID: String, deleting target: String? = nil) {
    refusedIDs.insert(clientMessageID.lowercased())
    if let target { refusedDeletes.insert(target.lowercased()) }
  }

  /// The lines that mention any of `keys`, at most `limit` (the first and last halves).
  func excerpt(mentioning keys: [String], limit: Int = 40) -> [String] {
    let keys = keys.filter { !$0.isEmpty }
    guard !keys.isEmpty else { return Array(lines.suffix(limit)) }
    let matching = lines.filter { line in keys.contains { line.contains($0) } }
    guard matching.count > limit else { return matching }
    return Array(matching.prefix(limit / 2)) + ["    … \(matching.count - limit) more lines …"]
      + Array(matching.suffix(limit / 2))
  }
}

/// API.md Part 3's actions in a run: reactions asked for, replies saved, messages written
/// naming a member, pins and unpins asked for, drafts typed, blocks and unblocks asked for.
public struct PartThreeCounts: Sendable, Equatable {
  public var reactions = 0
  public var replies = 0
  public var mentions = 0
  public var pins = 0
  public var drafts = 0
  public var blocks = 0
  public var forwards = 0

  public init() {}

  static func + (lhs: Self, rhs: Self) -> Self {
    var sum = lhs
    sum.reactions += rhs.reactions
    sum.replies += rhs.replies
    sum.mentions += rhs.mentions
    sum.pins += rhs.pins
    sum.drafts += rhs.drafts
    sum.blocks += rhs.blocks
    sum.forwards += rhs.forwards
    return sum
  }
}
