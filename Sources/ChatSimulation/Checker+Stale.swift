import ChatDomain
import ChatIdentifiers
import Foundation

// Stale sends ask first (issue 17): a message that waited in its outbox longer than the
// threshold is held ("not sent — send now?") instead of sent; its user sends it now or
// discards it.

extension Checker {
  /// How long after the stale threshold a post may still go on the wire. The engine decides
  /// when it picks a row (`startPosting`); a message with media is posted once its upload,
  /// started then, completes: a few requests of at most `Simulation.requestTimeout` (15 s)
  /// each, since a failed one ends the attempt and the next one picks the row again. Two
  /// minutes covers that with room; any later post was picked past the threshold.
  static let postSlack: Duration = .seconds(120)

  /// `device` holds `id` ("not sent — send now?"): its outbox went on without it.
  func held(_ id: MessageID, on device: String) {
    let key = DeviceMessage(device: device, id: id)
    everRetried.insert(key)
    if everHeld.insert(key).inserted { stale.held += 1 }
  }

  /// A send returned: its row has been in the outbox since then at the latest.
  func sendSaved(_ id: MessageID, on device: String) {
    let key = DeviceMessage(device: device, id: id)
    queuedAt[key] = min(queuedAt[key] ?? history.now, history.now)
  }

  /// The user chose "send now" for held `id`: it goes back to sending, its age starting again.
  func sendNowTapped(_ id: MessageID, on device: String) {
    let key = DeviceMessage(device: device, id: id)
    sendNowTaps[key, default: 0] += 1
    queuedAt[key] = history.now
    stale.sentNow += 1
  }

  /// The user tapped "discard" for held `id` (before the engine acts on it).
  func discardTapped(_ id: MessageID, on device: String) {
    discardTapped.insert(DeviceMessage(device: device, id: id))
  }

  /// The discard of held `id` returned: the server must not end holding it as a message.
  func discardReturned(_ id: MessageID, on device: String) {
    discarded[id.rawValue.lowercased()] = DeviceMessage(device: device, id: id)
    stale.discarded += 1
  }

  /// `device` put a post of its message `id` on the wire (an edit or delete item is not
  /// checked: only messages are held). Its age, from `queuedAt`, must be within the threshold
  /// and `postSlack`, unless its user discarded it (the discard posts a started one again,
  /// then its delete).
  func posted(_ id: MessageID, from device: String) {
    guard let staleAfter else { return }
    let key = DeviceMessage(device: device, id: id)
    guard !discardTapped.contains(key), let queued = queuedAt[key] else { return }
    let age = history.now - queued
    if age > staleAfter + Self.postSlack {
      report(
        .sentStale,
        "\(device) posted \(id) \(age.milliseconds / 1000) s after it was queued, "
          + "past the \(staleAfter.milliseconds / 1000) s threshold, without send now",
        keys: [id.rawValue, device])
    }
  }

  /// No held message its user discarded is a message on the server at the end, unless the
  /// server refused its delete for good (a 4xx: the message stays as the server has it, as
  /// for any refused delete).
  func checkDiscards(log: [LoggedConversation], simulation: Simulation) {
    for conversation in log {
      for item in conversation.messages
      where item.effectiveKind == .message && item.deleted != true {
        let id = item.clientMessageId.lowercased()
        guard let discard = discarded[id], !history.refusedDeletes.contains(id) else {
          continue
        }
        report(
          .discardKept,
          "\(discard.device) discarded held \(discard.id), and the server holds it at "
            + "\(simulation.label(conversation.id))#\(item.sequence)",
          keys: [discard.id.rawValue, discard.device])
      }
    }
  }
}
