import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Hashing
import Support

// The end-of-run checks of one device: its views, its outbox, its pruned window and where its
// user stands, against the server's log (`checkEnd` calls `checkDevice` for each).

extension Checker {
  /// The device's views equal the server's log; its outbox is empty; it knows exactly its
  /// user's conversations; its database holds nothing from elsewhere.
  func checkDevice(
    _ final: FinalView, log: [LoggedConversation], history: History, simulation: Simulation
  ) {
    let name = final.incarnation.name
    let user = final.device.user
    let mine = log.filter { $0.wasEverMember(user) }
    if let outbox = final.outbox, outbox != 0 {
      report(.undrained, "\(name) still has \(outbox) in its outbox", keys: [name])
    } else if final.outbox == nil {
      report(.undrained, "\(name): its outbox could not be read", keys: [name])
    }
    let listed = Set(final.listed)
    for conversation in mine where !listed.contains(conversation.id) {
      report(
        .divergent, "\(name) does not list \(simulation.label(conversation.id))", keys: [name])
    }
    for id in final.listed where !mine.contains(where: { $0.id == id }) {
      report(.foreign, "\(name) lists \(simulation.label(id)), not one of its user's", keys: [name])
    }
    checkStanding(final, mine: mine, simulation: simulation)
    for conversation in mine {
      let label = simulation.label(conversation.id)
      let view = conversation.views[user]
      let shown = final.views[conversation.id] ?? []
      let sent = shown.filter { $0.sequence != nil }
      for unsent in shown where unsent.sequence == nil {
        if case .failed = unsent.send, history.refusedIDs.contains(unsent.id.rawValue) {
          continue
        }
        report(
          .undrained, "\(name) \(label): \(unsent.id) ends \(unsent.send)",
          keys: [unsent.id.rawValue])
      }
      // Below the device's history floor its items were pruned: each message there must be
      // one the server search finds instead (`checkPruned`).
      let floor = final.floor(of: conversation.id)
      let expected = (view?.items ?? []).filter {
        [.message, .members, .title].contains($0.effectiveKind) && $0.sequence >= floor
      }
      checkPruned(
        final, (view?.items ?? []).filter { $0.sequence < floor }, in: conversation.id,
        simulation: simulation)
      let different = zip(sent, expected).enumerated().first { _, pair in
        !Self.same(
          pair.0, pair.1, text: conversation.sawEveryChange(of: pair.1, as: user))
      }
      if let index = different?.offset {
        report(
          .divergent,
          "\(name) \(label) shows \(sent[index].id) (#\(sent[index].sequence ?? 0)) where the server holds \(expected[index].clientMessageId) (#\(expected[index].sequence))"
            + (sent[index].id.rawValue == expected[index].clientMessageId.lowercased()
              ? ": \"\(Simulation.uniqueWords(of: sent[index].text))\" where the server has \"\(Simulation.uniqueWords(of: expected[index].text))\""
              : ""),
          keys: [sent[index].id.rawValue, expected[index].clientMessageId, name])
      } else if sent.count != expected.count {
        let missing = expected.dropFirst(sent.count).first?.clientMessageId ?? ""
        report(
          .divergent,
          "\(name) \(label) shows \(sent.count) messages, the server holds \(expected.count)",
          keys: [name, missing])
      } else {
        checkPartThree(
          final, shown: sent, served: expected, in: conversation, simulation: simulation)
      }
    }
    guard let held = final.held else {
      report(.unexpected, "\(name): its database could not be read", keys: [name])
      return
    }
    for hit in held {
      guard let conversation = mine.first(where: { $0.id == hit.conversationID }) else {
        report(
          .foreign, "\(name) holds \(hit.messageID) of a conversation its user is not in",
          keys: [hit.messageID.rawValue])
        continue
      }
      let onServer = conversation.messages.contains {
        $0.clientMessageId.lowercased() == hit.messageID.rawValue
      }
      let ownUnsent = hit.sequence == nil && hit.senderID == user
      if !onServer && !ownUnsent {
        report(
          .unexpected, "\(name) holds \(hit.messageID), which the server does not",
          keys: [hit.messageID.rawValue])
      }
      if let sequence = hit.sequence, conversation.views[user]?.sees(sequence) != true {
        report(
          .invisible,
          "\(name) holds \(hit.messageID) at \(simulation.label(conversation.id))#\(sequence), written while \(user) was not a member",
          keys: [hit.messageID.rawValue, name])
      }
    }
  }

  /// A message missing from a device because it lies below its conversation's history floor
  /// there is not lost: it is on the server (`below` is what the server serves the device's
  /// user there) and the device's server search found it (`FinalView.foundOnServer`). A
  /// deleted one has no text to search for; an edit, a delete or a members item is no message.
  private func checkPruned(
    _ final: FinalView, _ below: [Item], in conversation: ConversationID, simulation: Simulation
  ) {
    for item in below where item.effectiveKind == .message && item.deleted != true {
      let id = item.clientMessageId.lowercased()
      guard !final.foundOnServer.contains(id) else { continue }
      report(
        .prunedNotFound,
        "\(final.incarnation.name) pruned \(id) (\(simulation.label(conversation))#\(item.sequence), "
          + "below its floor \(final.floor(of: conversation))) and its server search does not find it",
        keys: [id, final.incarnation.name])
    }
  }

  /// The device stands where the server says its user stands in each conversation (member,
  /// removed, left), with the same visible ranges.
  private func checkStanding(
    _ final: FinalView, mine: [LoggedConversation], simulation: Simulation
  ) {
    let name = final.incarnation.name
    guard let held = final.conversations else {
      report(.membership, "\(name): its conversations could not be read", keys: [name])
      return
    }
    for conversation in mine {
      guard let view = conversation.views[final.device.user],
        let here = held.first(where: { $0.id == conversation.id })
      else { continue }  // Not listed at all: `divergent`.
      let ranges = view.visible.map { ($0.first, $0.last) }
      let same = here.visible.elementsEqual(ranges) { $0.first == $1.0 && $0.last == $1.1 }
      if here.participation.rawValue != view.membership.rawValue || !same {
        report(
          .membership,
          "\(name) stands in \(simulation.label(conversation.id)) as \(here.participation.rawValue) "
            + "\(Self.describe(here.visible)), the server says \(view.membership.rawValue) "
            + Self.describe(ranges),
          keys: [name])
      }
    }
  }
}
