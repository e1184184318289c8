import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation
import Hashing
import Support

/// One broken rule.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
  /// The rules, in Jepsen's words where it has one.
  public enum Invariant: String, Sendable, CaseIterable {
    /// A message the server acknowledged, or a device saved as sending, is not in the end state.
    case lost
    /// The same send is stored twice.
    case duplicated
    /// A message nobody sent, or under another ID than the one its device saved.
    case unexpected
    /// A conversation's sequences are not 1, 2, 3, … without holes.
    case gap
    /// After the healed phase a device's view is not the server's log, in the same order.
    case divergent
    /// A screen showed messages out of the server's order (unsent ones last, in ID order).
    case misordered
    /// An outbox still holds messages, or one ended failed without a 4xx.
    case undrained
    /// A tick went back (read → delivered, sent → sending, …).
    case receiptBackwards = "receipt-backwards"
    /// A message's sequence changed, or two messages showed at one sequence.
    case sequenceChanged = "sequence-changed"
    /// A device held a message or conversation its user was never a member of.
    case foreign
    /// A device held or showed an item of a conversation its user was in, but written while
    /// its user was not a member (API.md: outside its visible ranges).
    case invisible = "outside-visible"
    /// A device's word on where its user stands in a conversation (member, removed, left) or
    /// on the sequences it may see is not the server's.
    case membership
    /// A device's sends in one conversation were accepted in another order than written (a
    /// send written after another returned must get a later sequence, unless retried).
    case sendOrder = "send-order"
    /// A bubble changed its identity (the same send under two IDs).
    case identity
    /// A device still holds the text of a deleted message, in its rows or its search index.
    case erased = "not-erased"
    /// A device's files still hold bytes of a deleted message's text (an index segment never
    /// merged, a freed page, the write-ahead log), though no query finds it.
    case bytesLeft = "bytes-left"
    /// The world did not go quiet in the healed phase.
    case notQuiet = "not-quiet"
    /// A device or the server could not start again.
    case relaunch
    /// Work ran outside the simulation (another thread), so the run is not a function of its seed.
    case escaped
    /// A device holds media bytes other than those their sender picked (a download kept
    /// unchecked), or the server accepted a message whose object is not complete in the store.
    case media
    /// A message missing from a device because it lies below its conversation's history
    /// floor (pruned) is not on the server, or the device's server search does not find it.
    case prunedNotFound = "pruned-not-found"
    /// A message was posted after it waited in its outbox past the stale threshold, or a held
    /// one went back to sending, without its user choosing "send now".
    case sentStale = "sent-stale"
    /// A held message its user discarded is still a message on the server (a tombstone is
    /// right: its post may have reached the server before it was held).
    case discardKept = "discard-kept"
    /// A device shows other reactions on a message than the server's current ones (one lost,
    /// one doubled), or any on a deleted message (API.md Part 3).
    case reactions
    /// A reply's quote on a device is not the server's current quote for that reader: stale
    /// (an edit or delete not shown), or showing what the reader cannot see.
    case quote
    /// A device counts other unread mentions than the server's `unreadMentions`, or shows
    /// other mentions on a message than the server found.
    case mentions
    /// A device shows other pinned messages (or another order) than the server's `pinned` for
    /// its user, or either holds more than ten.
    case pins
    /// A device of a member shows another draft than the server holds for its user (one typed
    /// on another device not taken, or one typed here never sent).
    case drafts
    /// The server accepted a post in a one-to-one conversation while the other member surely
    /// blocked its sender (API.md Part 3: 403).
    case blockedPost = "blocked-post"
    /// A device holds another block list than the server's for its user, or shows a group
    /// message as blocked that is not (or the other way round).
    case blocking
  }

  public let invariant: Invariant
  public let detail: String
  /// What the trace excerpt looks for (message IDs, text tags, device names).
  public let keys: [String]

  public var description: String { "\(invariant.rawValue): \(detail)" }
}

/// Checks the history as it is made (what each screen shows, every time it changes) and once
/// more at the end (the server's log against every device and every operation).
final class Checker: @unchecked Sendable {
  // @unchecked: touched only on the world's thread.
  let history: History
  private(set) var violations: [Violation] = []
  /// Stops recording after this many (the first ones are what matter).
  private let limit = 20

  /// What a device last showed for one of its messages.
  private struct Shown {
    var sequence: Int?
    var ticks: Ticks?
  }

  struct DeviceMessage: Hashable {
    let device: String
    let id: MessageID
  }

  struct Slot: Hashable {
    let conversation: ConversationID
    let sequence: Int
  }

  /// A message as some device showed it at a sequence.
  struct Claim: Equatable {
    let id: MessageID
    let sender: UserID
    /// The text as sent; nil once edited or deleted (a text that changes, rightly).
    let text: [UInt8]?
    let device: String
  }

  private var shown: [DeviceMessage: Shown] = [:]
  /// Retry taps not yet answered by a failed message going back to the clock.
  private var retryTaps: [DeviceMessage: Int] = [:]

  /// Uses up one of the user's taps on `key` (retry, send now): true when there was one, so
  /// the move back to sending was asked for.
  private static func takeTap(_ taps: inout [DeviceMessage: Int], _ key: DeviceMessage) -> Bool {
    guard let count = taps[key], count > 0 else { return false }
    taps[key] = count - 1
    return true
  }
  /// Every message a retry was ever tapped for (a tap sends it to the back of its queue), or
  /// that was ever held (its outbox went on without it; "send now" puts it at the back).
  var everRetried: Set<DeviceMessage> = []
  /// The stale-send threshold of every device's engine; nil: the engine's default, which no
  /// run reaches, so nothing is checked.
  var staleAfter: Duration?
  /// The earliest the simulation knew each of my unsent messages was in its outbox since it
  /// was last queued: saved by `send`, first shown, or a retry or "send now" tapped. The
  /// row was queued at or before that, so a post's age measured from it is never more than
  /// the engine's own measure.
  var queuedAt: [DeviceMessage: Duration] = [:]
  /// "Send now" taps not yet answered by a held message going back to the clock.
  var sendNowTaps: [DeviceMessage: Int] = [:]
  /// Every held message its user tapped "discard" for: the discard itself may post it again
  /// (a post that had started, so the server may hold it, goes again before its delete).
  var discardTapped: Set<DeviceMessage> = []
  /// Held messages whose discard returned, by client message ID (lowercased): none may end
  /// as a message on the server.
  var discarded: [String: DeviceMessage] = [:]
  /// Every message some device held.
  var everHeld: Set<DeviceMessage> = []
  /// Messages held, sends now and discards, for the report.
  var stale = (held: 0, sentNow: 0, discarded: 0)
  /// What was shown at each sequence, first seen.
  private(set) var claims: [Slot: Claim] = [:]
  /// Each text's message ID, first seen (texts are unique per send).
  private(set) var idOfText: [[UInt8]: MessageID] = [:]
  /// Every (user, conversation) a device showed, for the membership check at the end.
  private(set) var seenBy: Set<String> = []
  /// The sequences each user's devices showed, by conversation, for the visibility check at
  /// the end (whom the server let see what is known for sure only then: a members change
  /// whose answer died with the server is learnt from the server at the end).
  private(set) var sequencesShown: [UserID: [ConversationID: Set<Int>]] = [:]

  init(history: History) {
    self.history = history
  }

  func report(_ invariant: Violation.Invariant, _ detail: String, keys: [String]) {
    guard violations.count < limit else { return }
    let violation = Violation(invariant: invariant, detail: detail, keys: keys)
    guard !violations.contains(violation) else { return }
    violations.append(violation)
    history.trace("VIOLATION \(violation)")
  }

  // MARK: - As it happens

  /// The SHA-256 of a file (hex), nil when it cannot be read.
  static func sha256(ofFileAt path: String) -> String? {
    (try? SHA256Hasher.file(at: path))?.map { Hex.encode($0.digest) }
  }

  /// A download returned `path` for message `id`: its bytes must be what the sender picked.
  func downloaded(_ id: MessageID, at path: String, on device: String) {
    guard let expected = history.mediaSent[id] else { return }
    if Self.sha256(ofFileAt: path) != expected {
      report(
        .media, "\(device) downloaded \(id) and holds bytes its sender did not pick",
        keys: [id.rawValue, device])
    }
  }

  /// The user tapped retry on a failed message: the one thing that may take it back to the
  /// clock.
  func retryTapped(_ id: MessageID, on device: SimDevice) {
    retryTaps[DeviceMessage(device: device.name, id: id), default: 0] += 1
    everRetried.insert(DeviceMessage(device: device.name, id: id))
    queuedAt[DeviceMessage(device: device.name, id: id)] = history.now
  }

  /// A screen of `device` shows `messages` for `conversation`.
  func observe(
    _ messages: [Message], in conversation: ConversationID, device: SimDevice,
    incarnation: Incarnation, simulation: Simulation
  ) {
    let place = "\(incarnation.name) \(simulation.label(conversation))"
    checkMembership(device.user, conversation, place, simulation)
    var ids: Set<MessageID> = []
    var lastSequence = 0
    var lastUnsent: MessageID?
    for message in messages {
      if !ids.insert(message.id).inserted {
        report(.duplicated, "\(place) shows \(message.id) twice", keys: [message.id.rawValue])
      }
      if message.conversationID != conversation {
        report(
          .foreign, "\(place) shows \(message.id) of another conversation",
          keys: [message.id.rawValue])
      }
      if let sequence = message.sequence {
        if lastUnsent != nil || sequence <= lastSequence {
          report(
            .misordered,
            "\(place) shows \(message.id) (sequence \(sequence)) after "
              + (lastUnsent.map { "unsent \($0)" } ?? "sequence \(lastSequence)"),
            keys: [message.id.rawValue, place])
        }
        lastSequence = sequence
        claim(message, at: sequence, in: conversation, device: incarnation.name)
        sequencesShown[device.user, default: [:]][conversation, default: []].insert(sequence)
      } else {
        if let lastUnsent, message.id.rawValue.lowercased() < lastUnsent.rawValue.lowercased() {
          report(
            .misordered, "\(place) shows unsent \(message.id) after unsent \(lastUnsent)",
            keys: [message.id.rawValue, lastUnsent.rawValue])
        }
        lastUnsent = message.id
      }
      track(message, device: device, incarnation: incarnation, place)
    }
  }

  /// The device's conversation list.
  func observeList(
    _ list: [ConversationSummary], device: SimDevice, incarnation: Incarnation,
    simulation: Simulation
  ) {
    for summary in list {
      checkMembership(device.user, summary.id, incarnation.name, simulation)
      if summary.participation == .member, !summary.memberIDs.contains(device.user) {
        report(
          .membership,
          "\(incarnation.name) lists \(simulation.label(summary.id)) as a member, without its user among the members",
          keys: [incarnation.name])
      }
    }
  }

  /// Notes that `user` saw `conversation` (checked against the server at the end); a user
  /// the simulation never saw in it is reported now, for the trace's excerpt.
  private func checkMembership(
    _ user: UserID, _ conversation: ConversationID, _ place: String, _ simulation: Simulation
  ) {
    if seenBy.insert("\(user.rawValue) \(conversation.rawValue.lowercased())").inserted,
      let members = simulation.everMembers(of: conversation), !members.contains(user)
    {
      simulation.history.trace(
        "check: \(place) shows \(simulation.label(conversation)), which \(user) was not seen joining"
      )
    }
  }

  private func claim(
    _ message: Message, at sequence: Int, in conversation: ConversationID, device: String
  ) {
    let slot = Slot(conversation: conversation, sequence: sequence)
    let unchanged = message.editedAt == nil && !message.isDeleted
    let claim = Claim(
      id: message.id, sender: message.senderID,
      text: unchanged ? Array(message.text.utf8) : nil, device: device)
    guard let earlier = claims[slot] else {
      claims[slot] = claim
      return
    }
    if earlier.text == nil && claim.text != nil { claims[slot] = claim }
    let texts = earlier.text.flatMap { a in claim.text.map { b in a == b } } ?? true
    if earlier.id != claim.id || earlier.sender != claim.sender || !texts {
      report(
        .sequenceChanged,
        "sequence \(sequence) was \(earlier.id) on \(earlier.device), is \(message.id) on \(device)",
        keys: [earlier.id.rawValue, message.id.rawValue])
    }
  }

  /// One message's states on one device (its database outlives kills, so incarnations share).
  private func track(
    _ message: Message, device: SimDevice, incarnation: Incarnation, _ place: String
  ) {
    let key = DeviceMessage(device: device.name, id: message.id)
    let mine = message.senderID == device.user
    let ticks = mine ? Ticks(send: message.send, receipt: message.receipt) : nil
    let text = Array(message.text.utf8)
    if message.isDeleted || message.event != nil || message.isForwarded {
      // A tombstone has no text to know it by, nor has a line such as "carol added dave"; a
      // forward has the text of another send (`checkForwards` follows it by its ID).
    } else if let known = idOfText[text], known != message.id {
      report(
        .identity, "\(place): one send shows as \(known) and as \(message.id)",
        keys: [known.rawValue, message.id.rawValue])
    } else {
      idOfText[text] = message.id
    }
    let now = Shown(sequence: message.sequence, ticks: ticks)
    if mine, message.sequence == nil, queuedAt[key] == nil {
      queuedAt[key] = history.now
    }
    if ticks == .notSent { held(message.id, on: device.name) }
    guard let before = shown[key] else {
      shown[key] = now
      history.trace("view \(place) \(message.id) \(Self.describe(now))")
      return
    }
    guard before.sequence != now.sequence || before.ticks != now.ticks else { return }
    shown[key] = now
    history.trace("view \(place) \(message.id) \(Self.describe(now))")
    if let old = before.sequence, old != now.sequence {
      report(
        .sequenceChanged,
        "\(place): \(message.id) moved from sequence \(old) to \(now.sequence.map(String.init) ?? "none")",
        keys: [message.id.rawValue])
    }
    if let old = before.ticks, let new = now.ticks {
      if !Self.mayFollow(old, with: new) {
        if !tappedThroughUnseenClock(old, new, key), !acceptedAfterRefusal(old, new, message.id) {
          report(
            .receiptBackwards, "\(place): \(message.id) went from \(old) to \(new)",
            keys: [message.id.rawValue])
        }
      } else if old == .notSent, new == .clock, !message.isDeleted {
        // A discard that turns a held message whose post had started into a tombstone sends
        // it (then its delete) on: that one shows the clock deleted.
        if !Self.takeTap(&sendNowTaps, key) {
          report(
            .sentStale, "\(place): \(message.id) went from not sent to sending untapped",
            keys: [message.id.rawValue])
        }
      } else if old == .failed, new == .clock {
        if !Self.takeTap(&retryTaps, key) {
          report(
            .receiptBackwards, "\(place): \(message.id) went from failed to sending untapped",
            keys: [message.id.rawValue])
        }
      }
    }
  }

  /// A message shown failed (a post refused for good) that the server holds after all: an
  /// earlier post of it, held back on the way (reordered), reached the server after the refusal
  /// (say, once a block was lifted), and the device shows what the server holds (seed 1073 of
  /// a 10,000-seed run, release build).
  private func acceptedAfterRefusal(_ old: Ticks, _ new: Ticks, _ id: MessageID) -> Bool {
    guard old == .failed, Self.rank(new) > 0 else { return false }
    return history.acknowledgements.contains {
      $0.clientMessageID.lowercased() == id.rawValue.lowercased()
    }
  }

  /// A tapped retry or "send now" whose clock no screen saw (the app was killed, or its screen
  /// closed) before the message failed again or waited too long again: failed to not sent, or
  /// back, or on to sent. Uses up the tap. (Seeds 596, 661 and 716 of `--retain-messages 5
  /// --stale-after 45` saw those moves and were not wrong.)
  private func tappedThroughUnseenClock(_ old: Ticks, _ new: Ticks, _ key: DeviceMessage) -> Bool {
    guard Self.mayFollow(old, with: .clock), Self.mayFollow(.clock, with: new) else { return false }
    return Self.takeTap(&retryTaps, key) || Self.takeTap(&sendNowTaps, key)
  }

  /// Ticks only move forward: clock → dimmed → one → two → read; a failed (or not sent: it
  /// waited too long) one goes back to the clock only when retried, and only a message still
  /// sending can fail or be held. A held one may also turn sent: a post of it that started
  /// before it was held reached the server (its reply lost), and a catch-up brought it back.
  /// (Whether a held one was posted again without "send now" is `posted`'s to say.)
  static func mayFollow(_ old: Ticks, with new: Ticks) -> Bool {
    switch (old, new) {
    case (.clock, .failed), (.failed, .clock), (.clock, .notSent), (.notSent, .clock): return true
    case (.notSent, _) where rank(new) > 0: return true
    case (.failed, _), (_, .failed), (.notSent, _), (_, .notSent): return old == new
    default: return rank(new) >= rank(old)
    }
  }

  private static func rank(_ ticks: Ticks) -> Int {
    switch ticks {
    case .clock: 0
    case .failed: 0
    case .notSent: 0
    case .dimmed: 1
    case .one: 2
    case .two: 3
    case .read: 4
    }
  }

  private static func describe(_ shown: Shown) -> String {
    let sequence = shown.sequence.map { "#\($0)" } ?? "#-"
    return shown.ticks.map { "\(sequence) \($0)" } ?? sequence
  }
}
